"""The full-screen Textual app. It renders the core loop's events and answers its permission
requests; it adds no agent logic of its own. Start it through `zizou.ui.launch.run_tui`."""

"""`zizou acp`: zizou as an Agent Client Protocol agent, so editors (Zed, JetBrains, Neovim,
Emacs) run it inside the editor. A thin front end over the same session kernel the app and
`zizou -p` build: it renders the loop's events as session updates and asks the editor for
permissions."""

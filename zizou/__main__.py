"""`python -m zizou` runs the command line."""

from zizou.launcher import main

if __name__ == "__main__":
    main()

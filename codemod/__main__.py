# `python -m codemod`: the repository's modules must not shadow the tool's (see entry.py).
from codemod.entry import main

if __name__ == "__main__":
    main()

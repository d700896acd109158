# `python -m codemod`: the repository's modules must not shadow the tool's dependencies (see
# entry.py); a repository's own codemod.py or codemod/ would be run instead of this file:
# use the `codemod` command or `python -P -m codemod` there.
from codemod.entry import main

if __name__ == "__main__":
    main()

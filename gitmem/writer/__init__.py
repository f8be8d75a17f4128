"""The writer: a plan of file changes becomes ONE commit on a branch (DESIGN.md section 4).

Every write of memory comes through :meth:`gitmem.writer.commit.Writer.write`:
take the write lock, plan against the branch tip, run the guards, make one
commit (compare-and-swap on the ref, planned again if the tip moved), and bring
the work tree along when the branch is checked out.

    plan.py      what a plan holds, the outcome of a write, the commit message
    chain.py     the guards in order (sandbox, content, PII, amplitude, layers), as one verdict
    commit.py    the writer: lock, plan, guards, commit, and the wait for a person's git commit
    worktree.py  the checked-out branch: index and files in step, the journal, recovery
    waiting.py   waiting, with nothing held, for another program's index.lock or git commit
"""

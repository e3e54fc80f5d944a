"""Process plumbing below orchestration and network: the children a run starts (never left
behind), what an interrupted run left (`leftovers`), a process's CPU clock, a server process."""

"""Files rpcarena reads and writes, handled so that nothing planted at a path can steer it.

rpcarena often runs as root (an emulated link needs it) and is told paths in shared folders, so:
`output` writes every file through a new temporary name beside it and renames it over a regular
file only (never through a link, onto a device, a FIFO or a folder), and never over a results
document unless told to; `inputs` opens for reading only what is a regular file (a FIFO would
block for ever); `lock` keeps one writer per results file; `journal` appends a run's cells as
they come, so saving does not grow with the run.
"""

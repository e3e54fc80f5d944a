"""Beyond one machine: servers and clients on the nodes of a Dask cluster (`--cluster`).

`rpcarena.cluster_spec` (beside the config, which checks it) reads what the user said (the
cluster, which node serves, which drive); here `engine` is the connection to Dask (kept quiet on
measuring nodes), `tasks` are what runs on a node (the same `serve` and `drive` processes as on
one machine), `channel` the small message protocol between the orchestrator and those tasks
(ready, warm, the barrier, stop), `cells` the cell runner that plugs into the arena and opens the
engine for the run, and `testbed` an emulated cluster on this machine: workers in the network
namespaces of an emulated link. See docs/cluster.md.
"""

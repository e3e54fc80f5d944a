"""Workloads from the user's own schema and samples (`rpcarena run --proto F --method pkg.Service/Call`).

The .proto is compiled once into a descriptor set (`compiled`, cached by the schema's hash), the
requests come from the user's samples or are generated from the schema (`samples`, `fill`), the
replies are the user's choice (`replies`), and the handler may spend CPU or wait (`work`).
`workload` turns those into a `Workload` that flows through the same path as the seeds' own: every
process that serves or calls it loads the descriptor set into `protocol.schema` (`add_user`), and
the Python servers add its handlers through `contenders.extra_handlers` (`handlers`).
"""

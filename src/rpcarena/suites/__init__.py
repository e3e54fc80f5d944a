"""Suites: each seed's design as one command (`rpcarena suite NAME`), with its claims judged.

A suite is data in its seed's folder (`rpcarena/seeds/<seed>/suite.py`: parts to run,
claims with the seed's numbers); this package is what every suite shares: the model
(`model`), the evidence a judge reads (`evidence`), the ways to judge (`judges`),
running a suite (`runner`) and judging a document's claims (`findings`).
"""

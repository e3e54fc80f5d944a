"""`rpcarena suite NAME --rules`: every claim with its form, operands, band or margin, setting and family,
printed without measuring."""

from __future__ import annotations

import pytest

from rpcarena import cli
from rpcarena.seeds import SUITES


@pytest.mark.parametrize("name", sorted(SUITES))
def test_rules_print_every_claim_with_its_form_setting_and_family_without_measuring(name, capsys, tmp_path,
                                                                                     monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("rpcarena.commands.suite.run_arena", lambda *a, **k: pytest.fail("--rules measured"))
    assert cli.main(["suite", name, "--rules"]) == 0
    out = capsys.readouterr().out
    suite = SUITES[name]
    for number, claim in enumerate(suite.claims, 1):
        block = out[out.index(f"\n{number}. "):]
        assert claim.text[:40] in block[:400]
        assert all(f"\n   {key}: " in block for key in ("the seed", "form", "setting")), (name, number)
    assert out.count("\n   family: ") + out.count("share below a line") >= len(suite.claims)
    assert not list(tmp_path.iterdir())  # no results, no report


def test_the_rules_the_issue_named_read_as_it_asked(capsys):
    cli.main(["suite", "cs6650", "--rules"])
    cs6650 = capsys.readouterr().out
    exp3 = cs6650[cs6650.index("\n3. Exp. 3"):cs6650.index("\n4. ")]
    assert "'up to 10x': the largest effect of the family must reach 10x's band" in exp3
    assert "a win below the band is not enough" in exp3
    cli.main(["suite", "infobip2016", "--rules"])
    infobip = capsys.readouterr().out
    equal = infobip[infobip.index("\n2. "):infobip.index("\n3. ")]
    assert "two one-sided tests (TOST), equivalent when its interval lies inside 0.909x to 1.1x" in equal
    assert "family: 8 cells, Holm-corrected as one" in equal and "(a full run only: not in --quick)" in equal

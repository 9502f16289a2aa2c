"""Solve the first N deal numbers under each rule set; print verdicts, times and nodes per deal.

Usage: .venv/bin/python bench/solver.py [N] [RULE-NAME-PART | TOKEN,TOKEN... | all]
  default: 2000 deals and the rule sets of RULE_SETS (the variants alone, the combinations in docs/benchmarks.md,
  and strict win with the drawn card under every pass limit); tokens such as SP0W,P2WC time those instead;
  ``all`` times every combination of the rule options (S, P0-P9 or unlimited, W, C: 88 rule sets).
Set PYRAMIDE_PURE_SOLVER=1 to time the pure Python search where the compiled core would run.
The node limit is the solver's default (2,000,000 per deal); "undecided" counts the deals it left open.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyramide import Game, Rules
from pyramide.rules import MAX_PASS_LIMIT
from pyramide.solver import DEFAULT_NODE_LIMIT, Verdict, compiled_for, solve
from pyramide.solver.native import switch_off

if os.environ.get("PYRAMIDE_PURE_SOLVER", "").strip() == "1":  # a bench reads its own switches
    switch_off()

RULE_SETS = {
    "default (N)": Rules(),
    "one pass (P0)": Rules(pass_limit=0),
    "three passes (P2)": Rules(pass_limit=2),
    "strict win (S)": Rules(strict_win=True),
    "drawn card with waste (W)": Rules(draw_with_waste=True),
    "card with cover (C)": Rules(pair_with_cover=True),
    **{
        token: Rules.from_token(token)
        for token in ("SP0", "SP1", "SP2", "P1", "P0C", "P1C", "P0W", "P1W", "P2W", "P0WC", "P1WC", "P2WC", "SW", "SWC")
    },
    # strict win with the drawn card, the hardest family: every pass limit, with and without C
    **{f"SP{n}W{c}": Rules.from_token(f"SP{n}W{c}") for c in ("", "C") for n in range(MAX_PASS_LIMIT + 1)},
}


def every_rule_set() -> dict[str, Rules]:
    return {
        rules.token: rules
        for strict in (False, True)
        for passes in (None, *range(MAX_PASS_LIMIT + 1))
        for waste in (False, True)
        for cover in (False, True)
        for rules in [Rules(strict_win=strict, pass_limit=passes, draw_with_waste=waste, pair_with_cover=cover)]
    }


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    only = sys.argv[2] if len(sys.argv) > 2 else None
    rule_sets = RULE_SETS
    if only == "all":
        rule_sets, only = every_rule_set(), None
    elif only and only.isupper():
        rule_sets = {token: Rules.from_token(token) for token in only.split(",")}
        only = None
    print(f"first {count} deal numbers per rule set, node limit {DEFAULT_NODE_LIMIT:,} per deal")
    print(
        f"{'rules':26} {'core':8} {'deals':>5} {'winnable':>8} {'unwinnable':>10} {'undecided':>9} "
        f"{'mean ms':>8} {'p99 ms':>8} {'max ms':>8} {'mean nodes':>10} {'p99 nodes':>10} {'max nodes':>10}"
    )
    for name, rules in rule_sets.items():
        if only and only not in name:
            continue
        times: list[float] = []
        nodes: list[float] = []
        verdicts = dict.fromkeys(Verdict, 0)
        for number in range(count):
            game = Game.from_number(number, rules)
            start = time.perf_counter()
            result = solve(game)
            times.append((time.perf_counter() - start) * 1000)
            nodes.append(result.nodes)
            verdicts[result.verdict] += 1
        core = "compiled" if compiled_for(rules) else "Python"
        print(
            f"{name:26} {core:8} {count:5} {verdicts[Verdict.WON]:8} {verdicts[Verdict.IMPOSSIBLE]:10} "
            f"{verdicts[Verdict.UNDECIDED]:9} {statistics.fmean(times):8.2f} {percentile(times, 0.99):8.1f} "
            f"{max(times):8.1f} {statistics.fmean(nodes):10.0f} {percentile(nodes, 0.99):10.0f} {max(nodes):10.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main()

"""Solve the first N deal numbers under each rule set; print winnable/undecided fractions and timings.

Usage: .venv/bin/python bench/solver.py [N] [RULE-NAME-PART | TOKEN,TOKEN...]
  (default 2000 deals and the six rule sets below; tokens such as SP0W,P2WC time those instead)
Set PYRAMIDE_PURE_SOLVER=1 to time the pure Python search where the compiled core would run.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyramide import Game, Rules
from pyramide.solver import Verdict, has_compiled_core, solve

RULE_SETS = {
    "default (N)": Rules(),
    "one pass (P0)": Rules(pass_limit=0),
    "three passes (P2)": Rules(pass_limit=2),
    "strict win (S)": Rules(strict_win=True),
    "drawn card with waste (W)": Rules(draw_with_waste=True),
    "card with cover (C)": Rules(pair_with_cover=True),
}


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    only = sys.argv[2] if len(sys.argv) > 2 else None
    rule_sets = RULE_SETS
    if only and only.isupper():
        rule_sets = {f"token {token}": Rules.from_token(token) for token in only.split(",")}
        only = None
    core = (
        "compiled core" if has_compiled_core() else "pure Python (compiled core not built or PYRAMIDE_PURE_SOLVER set)"
    )
    print(f"{count} deals per rule set, node limit per deal: default; limited passes: {core}")
    print(f"{'rules':28} {'winnable':>9} {'undecided':>9} {'median ms':>9} {'p99 ms':>8} {'max ms':>8}")
    for name, rules in rule_sets.items():
        if only and only not in name:
            continue
        times = []
        won = undecided = 0
        for number in range(count):
            game = Game.from_number(number, rules)
            start = time.perf_counter()
            result = solve(game)
            times.append((time.perf_counter() - start) * 1000)
            won += result.won
            undecided += result.verdict is Verdict.UNDECIDED
        times.sort()
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
        print(
            f"{name:28} {won / count:9.1%} {undecided / count:9.1%} "
            f"{statistics.median(times):9.2f} {p99:8.1f} {times[-1]:8.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()

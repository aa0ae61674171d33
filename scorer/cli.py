"""The command line, ``python -m scorer``: count a show, score a play, the distribution, discards.

    python -m scorer show 5H 5C 5S JD 5D [--crib] [--json]      (the last card is the starter)
    python -m scorer peg A:5H B:TS A:5D ... [--hand A:5H,5D,... ...] [--json]
    python -m scorer stats [--crib] [--json]
    python -m scorer discard 5H 5C 5S JD 2C 9D [--dealer] [--players 2|3|4] [--json]

``--json`` prints the same JSON as the web API. ``--lang hi`` (or ``mr``, ``tg``; before or after
the subcommand) speaks the count, rulings, labels and refusals in that language; card codes and
JSON keys stay as they are. Bad input, whether a bad card, an illegal play
or a wrong option, prints one line on stderr and exits with status 2. When the reader of the
output goes away (``| head -1``), the command stops quietly with status 141 (128 + SIGPIPE), as
a shell tool killed by the broken pipe would.

The numpy modules (``tables``, ``discard``) are imported only by the subcommands that use them,
so ``show`` and ``peg`` start fast.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from scorer import i18n
from scorer.cards import parse_cards
from scorer.errors import CardError
from scorer.i18n import N_, _, digits
from scorer.pegging import PegEvent, score_pegging
from scorer.rules import SHOW_CARDS
from scorer.rulings import show_answer
from scorer.show import PAIR_NAMES, ScoreKind, score_show

__all__ = ["main", "build_parser", "EXIT_OK", "EXIT_BAD_INPUT", "EXIT_BROKEN_PIPE"]

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE
"""The status a shell reports for a tool the closed pipe stopped (141)."""
"""Exit status for bad input, the same as argparse's own usage errors."""

_SHARE_PLACES = 5
"""Decimal places of a percent share in ``stats``: enough to show the four 29s (0.00003 %)."""
_MEAN_PLACES = 2
"""Decimal places of the means in the ``discard`` table; ``--json`` gives them unrounded."""


_SHOW_WHAT = N_("cards (four in hand, then the starter)")
"""How ``show``'s count message names its cards."""
_AWARD_NAMES = {
    ScoreKind.FIFTEEN: N_("fifteen"), ScoreKind.RUN: N_("run"), ScoreKind.GO: N_("go"),
    ScoreKind.THIRTY_ONE: N_("thirty-one"), ScoreKind.LAST: N_("last card"),
}
"""The play's other awards as players name them (the JSON's kinds stay English)."""
_SHOW_NAMES = {
    ScoreKind.FIFTEEN: N_("fifteen"), ScoreKind.PAIR: N_("pair"), ScoreKind.RUN: N_("run"),
    ScoreKind.FLUSH: N_("flush"), ScoreKind.NOBS: N_("nobs"),
}
"""The show table's first column: each item's kind in the language's words."""
_DISCARD_SUMMARY = {
    (2, True): N_("2 players, your crib: net = hand + crib"),
    (2, False): N_("2 players, your opponent's crib: net = hand - crib"),
    (3, True): N_("3 players, your crib: net = hand + crib"),
    (3, False): N_("3 players, the dealer's crib: net = hand - crib"),
    (4, True): N_("4 players, your side's crib: net = hand + crib"),
    (4, False): N_("4 players, the other side's crib: net = hand - crib"),
}
"""The ``discard`` table's last line, by players and whose crib it is."""


class _UsageError(Exception):
    """A command line argparse could not read; its message is one line."""


class _Parser(argparse.ArgumentParser):
    """An argparse parser that reports usage errors as one line instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    """The ``python -m scorer`` argument parser, one subcommand per task."""
    parser = _Parser(prog="python -m scorer", description="Muggins cribbage scorer.")
    lang_help = "language of the spoken count, rulings and messages: " + ", ".join(i18n.LANGUAGES)
    parser.add_argument("--lang", choices=i18n.LANGUAGES, default=i18n.DEFAULT_LANGUAGE, help=lang_help)
    # The same option after the subcommand ("show ... --lang hi"); SUPPRESS keeps the one given
    # before it when this one is absent.
    lang = _Parser(add_help=False)
    lang.add_argument("--lang", choices=i18n.LANGUAGES, default=argparse.SUPPRESS, help=lang_help)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    show = commands.add_parser("show", parents=[lang], help="count a hand or crib with its starter")
    show.add_argument("cards", nargs="+", metavar="CARD", help="four cards, then the starter")
    show.add_argument("--crib", action="store_true", help="count as the crib (a flush needs five)")
    show.add_argument("--json", action="store_true", help="print JSON")
    show.set_defaults(run=_show)

    peg = commands.add_parser("peg", parents=[lang], help="score the play from its cards in order")
    peg.add_argument("plays", nargs="+", metavar="PLAYER:CARD", help="plays in order, e.g. A:5H")
    peg.add_argument(
        "--hand", action="append", metavar="PLAYER:CARDS",
        help="a player's cards for the play, e.g. A:5H,5D,4C,3S; repeat for each player in seating "
        "order from the dealer's left to check that every play was legal",
    )
    peg.add_argument("--json", action="store_true", help="print JSON")
    peg.set_defaults(run=_peg)

    stats = commands.add_parser("stats", parents=[lang], help="show scores over all 12,994,800 deals")
    stats.add_argument("--crib", action="store_true", help="count the deals as cribs")
    stats.add_argument("--json", action="store_true", help="print JSON")
    stats.set_defaults(run=_stats)

    discard = commands.add_parser("discard", parents=[lang], help="rank every way to lay away to the crib")
    discard.add_argument("cards", nargs="+", metavar="CARD", help="the cards dealt to you")
    discard.add_argument("--dealer", action="store_true", help="the crib is yours (or your partner's)")
    discard.add_argument("--players", type=int, choices=(2, 3, 4), default=2, help="players (default 2)")
    discard.add_argument("--json", action="store_true", help="print JSON")
    discard.set_defaults(run=_discard)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return the exit status (0, or 2 for bad input)."""
    try:
        args = build_parser().parse_args(argv)
        run: Callable[[argparse.Namespace], str] = args.run
        with i18n.using(args.lang):
            text = run(args)
    except _UsageError as e:
        _fail(str(e))
        return EXIT_BAD_INPUT
    except ValueError as e:  # the engine's CardError, IllegalPlayError and friends
        _fail(str(e))
        return EXIT_BAD_INPUT
    except SystemExit as e:  # --help prints and exits 0
        return e.code if isinstance(e.code, int) else EXIT_OK
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader closed the pipe: nothing more can be said. Point stdout at devnull so the
        # interpreter's last flush at exit does not raise (and print a traceback) again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    return EXIT_OK


def _fail(message: str) -> None:
    print(" ".join(message.split()), file=sys.stderr)


def _dump(data: object) -> str:
    return json.dumps(data, ensure_ascii=False)


def _show(args: argparse.Namespace) -> str:
    cards = parse_cards(" ".join(args.cards), SHOW_CARDS, _SHOW_WHAT)
    if args.json:
        return _dump(show_answer(cards[:-1], cards[-1], crib=args.crib))
    score = score_show(cards[:-1], cards[-1], crib=args.crib)
    width = max((len(" ".join(map(str, i.cards))) for i in score.items), default=0)
    lines = [
        f"{_(_SHOW_NAMES[item.kind]):<10} {' '.join(map(str, item.cards)):<{width}}  {digits(item.points):>2}"
        for item in score.items
    ]
    lines.append(_("total %(total)s", total=digits(score.total)))
    lines.append(score.spoken())
    return "\n".join(lines)


def _peg(args: argparse.Namespace) -> str:
    hands = _hands(args.hand) if args.hand else None
    pegging = score_pegging(" ".join(args.plays), hands)
    if args.json:
        return _dump(pegging.to_json())
    width = max(len(player) for player, _card in pegging.plays)
    lines: list[str] = []
    for i, (player, card) in enumerate(pegging.plays):
        if i and i in pegging.restarts:
            lines.append(_("-- new count"))
        awards = ", ".join(_("%(award)s %(points)s", award=_award_name(e), points=digits(e.points))
                           for e in pegging.events_for(i))
        lines.append(f"{i + 1:>2}  {player:<{width}}  {card}  {pegging.counts[i]:>2}  {awards}".rstrip())
    lines.append(_("points: %(scores)s", scores=", ".join(
        _("%(player)s %(points)s", player=p, points=digits(n)) for p, n in pegging.points.items())))
    return "\n".join(lines)


def _award_name(event: PegEvent) -> str:
    if event.kind is ScoreKind.PAIR:
        return _(PAIR_NAMES[event.points])
    return _(_AWARD_NAMES[event.kind]) if event.kind in _AWARD_NAMES else event.kind.value


def _hands(specs: Sequence[str]) -> dict[str, str]:
    """``--hand A:5H,5D,4C,3S`` options as the player-to-cards mapping, in seating order."""
    hands: dict[str, str] = {}
    for spec in specs:
        player, colon, cards = spec.partition(":")
        if not colon or not player.strip():
            raise CardError(_("bad hand %(hand)s: write it as PLAYER:CARDS, like 'A:5H,5D,4C,3S'",
                              hand=repr(spec)))
        if player in hands:
            raise CardError(_("bad hand %(hand)s: %(player)s's hand is given twice",
                              hand=repr(spec), player=player))
        hands[player] = cards
    return hands


def _stats(args: argparse.Namespace) -> str:
    from scorer.tables import distribution

    dist = distribution(crib=args.crib)
    if args.json:
        return _dump(dist.to_json())
    lines = [f"{_('score'):>5}  {_('deals'):>10}  {_('share'):>9}"]
    for score, deals in dist.counts.items():
        lines.append(f"{score:>5}  {deals:>10,}  {100 * deals / dist.deals:>8.{_SHARE_PLACES}f}%")
    total, mean = digits(dist.deals), f"{dist.mean:.4f}"
    if args.crib:
        lines.append(_("%(deals)s crib deals, mean %(mean)s", deals=total, mean=mean))
    else:
        lines.append(_("%(deals)s hand deals, mean %(mean)s", deals=total, mean=mean))
    return "\n".join(lines)


def _discard(args: argparse.Namespace) -> str:
    from scorer.discard import advise

    options = advise(" ".join(args.cards), players=args.players, dealer=args.dealer)
    if args.json:
        return _dump({"options": [o.to_json() for o in options]})
    p = _MEAN_PLACES
    rows = [(_("rank"), _("throw"), _("keep"), _("hand mean (min-max)"),
             _("crib +") if args.dealer else _("crib -"), _("net"))]
    for o in options:
        # Competition ranking, as rank_of: a throw tied with a better one shares its rank.
        rank = 1 + sum(1 for other in options if other.net > o.net)
        rows.append((
            str(rank),
            " ".join(map(str, o.throw)),
            " ".join(map(str, o.keep)),
            f"{o.hand.mean:.{p}f} ({o.hand.min}-{o.hand.max})",
            f"{o.crib_mean:.{p}f}",
            f"{o.net:.{p}f}",
        ))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.append(_(_DISCARD_SUMMARY[args.players, args.dealer]))
    return "\n".join(lines)

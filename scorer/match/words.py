"""The words of a match: results, the screen's prompt, whose cards, claims, every history line.

The history lines and refusals are built from these sentences, so a screen, the API and the
engine's messages say the same thing the same way. Every sentence is one message of the
catalogues (``scorer.i18n``) with named placeholders, numbers in the reader's digits.

A history line is said when it is read, not when its event is applied (``records.Said``): the
``*_line`` functions here take only values fixed when the event came (names as they were then,
cards, points, immutable records) and word them in the current language.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache

from scorer.i18n import LANGUAGES, N_, _, digits, ngettext, using
from scorer.match.records import Phase, Said
from scorer.match.settings import LengthKind, Settings
from scorer.match.state import CRIB, STARTER, EngineState, Owner
from scorer.pegging import THIRTY_ONE
from scorer.rules import HAND_SIZE, GameResult, SkunkKind
from scorer.show import Score

__all__ = [
    "result_words", "match_words", "owner_words", "claim_notes", "prompt", "cards_held", "cannot_go",
    "first_lead", "played_after_go", "wrong_lead", "unfinished_play", "names_and", "hand_words",
    "crib_words", "tally_words", "entry_line", "cut_line", "starter_line", "pegs_line", "play_line",
    "count_line", "award_words", "muggins_line", "correction_line", "next_game_line", "settings_line",
    "undo_line", "YOU", "is_you",
]

_MAX_CARD_VALUE = 10
"""The most a card is worth in the play (tens and faces)."""

YOU = "You"
"""The name a match started in one tap gives the player holding the phone ("You v Opponent",
templates/matches/index.html). Lines about a player of that name are said in the second person
("you deal", "your hand"), each its own sentence in every language; other names in the third."""


def is_you(name: str) -> bool:
    """Whether ``name`` is the one-tap match's "You", said in the second person.

    >>> from scorer.match import Match, new_match_settings
    >>> m = Match(new_match_settings(["You", "Opponent"], first_dealer=0))
    >>> m.state.prompt
    'game 1, hand 1: you deal; turn the starter'
    >>> m = m.apply({"type": "peg", "player": 0, "points": 2})
    >>> m = m.apply({"type": "show", "player": 1, "points": 8})
    >>> m = m.apply({"type": "show", "player": 0, "points": 12})
    >>> [e.text for e in m.history]
    ['you peg 2', "Opponent's hand: 8", 'your hand: 12']
    """
    return name == YOU or name in _you_in_every_language()


@cache
def _you_in_every_language() -> frozenset[str]:
    """ "You" as each language's one-tap match names its player (the phone that made the match
    named it in its own language: आप, तुम्ही, Шумо)."""
    names = set()
    for lang in LANGUAGES:
        with using(lang):
            names.add(_("You"))
    return frozenset(names)


_PLAY_KINDS = {
    "fifteen": N_("fifteen"), "pair": N_("pair"), "run": N_("run"), "go": N_("go"),
    "thirty-one": N_("thirty-one"), "last": N_("last"),
}
"""What the play scores, by its kind (``scorer.show.ScoreKind`` values), in a refused claim's count."""


def names_and(names: Sequence[str]) -> str:
    """``"Ann and Bob"``, ``"Ann and Bob and Cat"``: players named together."""
    text = names[0]
    for name in names[1:]:
        text = _("%(earlier)s and %(last)s", earlier=text, last=name)
    return text


def tally_words(values: Sequence[int]) -> str:
    """Scores or tallies side by side, ``"121–87"``, in the reader's digits."""
    return "–".join(digits(v) for v in values)


def result_words(s: Settings, result: GameResult) -> str:
    """``"Ann won 121–87 (skunk)"``; judged loser by loser ``"Ann won 61–40–25 (Bob skunk, Cat
    double skunk)"``."""
    if result.each:
        ranked = sorted(result.each, key=lambda m: -m.loser_score)
        scores = tally_words((result.winner_score, *(m.loser_score for m in ranked)))
        won = _("%(name)s won %(scores)s", name=s.side_name(result.winner), scores=scores)
        margins = [_("%(name)s %(margin)s", name=s.side_name(m.side), margin=m.skunk.label)
                   for m in ranked if m.skunk is not SkunkKind.PLAIN]
        if not margins:
            return won
        return _("%(result)s (%(margins)s)", result=won, margins=", ".join(margins))
    scores = tally_words((result.winner_score, result.loser_score))
    if result.skunk is SkunkKind.PLAIN:
        return _("%(name)s won %(scores)s", name=s.side_name(result.winner), scores=scores)
    return _("%(name)s won %(scores)s (%(margin)s)", name=s.side_name(result.winner), scores=scores,
             margin=result.skunk.label)


def match_words(s: Settings, games_won: Sequence[int], game_points: Sequence[int], winner: int | None) -> str:
    """``"Ann won the match 2–1 in games"``, or ``""`` while the match goes on.

    With three players every side's tally is given, the winner's first ("2–1–0"): one number for
    "the others" would hide a player. A single game of three is just "Ann won the match": "1–0–0
    in games" says nothing the game's result has not said.

    >>> best_of_3 = {"kind": "best_of", "games": 3}
    >>> three = Settings.from_json({"players": ["Ann", "Bob", "Cat"], "length": best_of_3})
    >>> match_words(three, (1, 2, 0), (1, 3, 0), 1)
    'Bob won the match 2–1–0 in games'
    """
    if winner is None:
        return ""
    best_of = s.length.kind is LengthKind.BEST_OF
    tally = games_won if best_of else game_points
    name = s.side_name(winner)
    if len(tally) == 3:
        if best_of and s.length.count == 1:
            return _("%(name)s won the match", name=name)
        others = sorted((v for i, v in enumerate(tally) if i != winner), reverse=True)
        shown = tally_words((tally[winner], *others))
    else:
        shown = tally_words((tally[winner], max(v for i, v in enumerate(tally) if i != winner)))
    if best_of:
        return _("%(name)s won the match %(tally)s in games", name=name, tally=shown)
    return _("%(name)s won the match %(tally)s in game points", name=name, tally=shown)


def hand_words(name: str) -> str:
    """``"Bob's hand"``, ``"your hand"``."""
    if is_you(name):
        return _("your hand")
    return _("%(name)s's hand", name=name)


def crib_words(name: str) -> str:
    """``"Ann's crib"``, ``"your crib"``."""
    if is_you(name):
        return _("your crib")
    return _("%(name)s's crib", name=name)


def owner_words(s: Settings, owner: Owner) -> str:
    """``"the crib"``, ``"the starter"`` or ``"Bob's hand"``."""
    if owner == CRIB:
        return _("the crib")
    if owner == STARTER:
        return _("the starter")
    return hand_words(s.players[int(owner)])


def claim_notes(
    names: Sequence[str], muggins: bool, claims: Mapping[int, int], true: Mapping[int, int]
) -> str:
    """``"; Bob claimed 2: 1 open to muggins"`` for each under-claim in a play."""
    notes = []
    for seat, claim in claims.items():
        if claim < true[seat]:
            if muggins:
                notes.append(_("%(name)s claimed %(claim)s: %(open)s open to muggins", name=names[seat],
                               claim=digits(claim), open=digits(true[seat] - claim)))
            else:
                notes.append(_("%(name)s claimed %(claim)s, corrected to %(points)s", name=names[seat],
                               claim=digits(claim), points=digits(true[seat])))
    return "".join(f"; {note}" for note in notes)


def prompt(s: Settings, st: EngineState) -> str:
    """The screen's line: ``"game 1, hand 3: Bob to count"``."""
    name = s.players
    if st.phase is Phase.CUT:
        return _("cut for the first deal: %(names)s", names=", ".join(name[seat] for seat in st.cutting))
    if st.phase is Phase.MATCH_OVER:
        return match_words(s, st.games_won, st.game_points, st.match_winner)
    if st.phase is Phase.GAME_OVER and st.result is not None:
        return _("%(result)s: start the next game", result=result_words(s, st.result))
    hand = st.hand
    assert hand is not None  # dealt once the cut is over
    where = {"game": digits(st.game), "hand": digits(hand.number)}
    dealer, leader = name[hand.dealer], name[hand.order[0]]
    if st.phase is Phase.STARTER and s.scores_only:
        if is_you(dealer):
            return _("game %(game)s, hand %(hand)s: you deal; the play, %(leader)s leads", leader=leader,
                     **where)
        if is_you(leader):
            return _("game %(game)s, hand %(hand)s: %(name)s deals; the play, you lead", name=dealer, **where)
        return _("game %(game)s, hand %(hand)s: %(name)s deals; the play, %(leader)s leads", name=dealer,
                 leader=leader, **where)
    if st.phase is Phase.STARTER:
        if is_you(dealer):
            return _("game %(game)s, hand %(hand)s: you deal; turn the starter", **where)
        return _("game %(game)s, hand %(hand)s: %(name)s deals; turn the starter", name=dealer, **where)
    if st.phase is Phase.PLAY:
        if hand.plays:
            return _("game %(game)s, hand %(hand)s: the play, %(played)s of %(total)s cards played",
                     played=digits(len(hand.plays)), total=digits(HAND_SIZE * len(name)), **where)
        if is_you(leader):
            return _("game %(game)s, hand %(hand)s: the play, you lead", **where)
        return _("game %(game)s, hand %(hand)s: the play, %(leader)s leads", leader=leader, **where)
    if st.phase is Phase.SHOW:
        return _("game %(game)s, hand %(hand)s: %(name)s to count", name=name[hand.order[len(hand.counted)]],
                 **where)
    return _("game %(game)s, hand %(hand)s: %(name)s to count the crib", name=dealer, **where)


def cards_held(count: int) -> str:
    """``"1 card"`` or ``"4 cards"``."""
    return ngettext("%(num)s card", "%(num)s cards", count)


def cannot_go(name: str, count: int, held: int, player: str, card: str) -> str:
    """A player passed over while every card they could hold fits (docs/RULES.md, "The play")."""
    return ngettext(
        "%(name)s could not have said go at %(count)s: %(name)s still holds %(num)s card and it fits "
        "under %(limit)s (a card is worth at most %(most)s). It was %(name)s's turn, not %(player)s's "
        "(%(card)s).",
        "%(name)s could not have said go at %(count)s: %(name)s still holds %(num)s cards and every card "
        "fits under %(limit)s (a card is worth at most %(most)s). It was %(name)s's turn, not %(player)s's "
        "(%(card)s).",
        held, name=name, count=digits(count), limit=digits(THIRTY_ONE), most=digits(_MAX_CARD_VALUE),
        player=player, card=card,
    )


def first_lead(due: str, player: str) -> str:
    """The play led by someone other than the player on the dealer's left."""
    if is_you(due):
        return _("you lead the play (the player on the dealer's left), not %(player)s", player=player)
    return _("%(due)s leads the play (the player on the dealer's left), not %(player)s", due=due,
             player=player)


def played_after_go(name: str, card: str, count: int, value: int) -> str:
    """A card that would have fitted when its player said go earlier this hand."""
    return _(
        "%(name)s could not have played %(card)s: %(name)s said go at %(count)s, yet %(card)s would have "
        "made %(total)s there, and a player who holds a card that fits must play it.",
        name=name, card=card, count=digits(count), total=digits(count + value),
    )


def wrong_lead(due: str, player: str, count: int, last: str, out: Sequence[str]) -> str:
    """A new count led by someone other than the next player after the last card's."""
    if count == THIRTY_ONE:
        why = _("after %(limit)s the next player after %(last)s, who made it, leads the new count",
                limit=digits(THIRTY_ONE), last=last)
    else:
        why = _("nobody could play on %(count)s, so the next player after %(last)s, who played last, leads",
                count=digits(count), last=last)
    if not out:
        return _("it was %(due)s's lead, not %(player)s's: %(why)s.", due=due, player=player, why=why)
    return ngettext(
        "it was %(due)s's lead, not %(player)s's: %(why)s (%(names)s has no cards left).",
        "it was %(due)s's lead, not %(player)s's: %(why)s (%(names)s have no cards left).",
        len(out), due=due, player=player, why=why, names=names_and(out),
    )


def unfinished_play(s: Settings, left: Mapping[int, int], shown: Mapping[int, Sequence[str]]) -> str:
    """Why a show must wait: whose cards are still to play, by card where the show names them."""
    parts = []
    for seat, count in left.items():
        cards = shown.get(seat, ())
        name = s.players[seat]
        if len(cards) == count:
            parts.append(ngettext("%(name)s's %(cards)s is still to play",
                                  "%(name)s's %(cards)s are still to play",
                                  count, name=name, cards=" ".join(cards)))
        else:
            parts.append(ngettext("%(name)s's last card is still to play",
                                  "%(name)s's last %(num)s cards are still to play", count, name=name))
    certain = [f"{s.players[seat]}:{card}" for seat, cards in shown.items() for card in cards]
    if certain and len(certain) == sum(left.values()):
        return _("the play is not finished: %(parts)s (enter %(plays)s as the play first, then the show)",
                 parts="; ".join(parts), plays=" ".join(certain))
    return _("the play is not finished: %(parts)s (enter the rest of the play first: its go and last-card "
             "points are due)", parts="; ".join(parts))


# -- history lines: worded when read (records.Said) --------------------------------------------


def entry_line(line: Said, unscored: int, result: Said | None, match: Said | None) -> str:
    """An event's line, with the points the won game left unscored and the result it ended in."""
    text = str(line)
    if unscored:
        text = ngettext("%(line)s (%(num)s not scored: the game was already won)",
                        "%(line)s (%(num)s not scored: the game was already won)", unscored, line=text)
    if result is not None:
        text = _("%(line)s; game over: %(result)s", line=text, result=str(result))
        if match is not None:
            text = _("%(line)s; %(match)s", line=text, match=str(match))
    return text


def cut_line(cuts: tuple[tuple[str, str], ...], tied: tuple[str, ...]) -> str:
    """``"cut for deal: Ann 5H, Bob KD; Ann deals"``, or who tie low and cut again."""
    shown = ", ".join(_("%(name)s %(card)s", name=name, card=card) for name, card in cuts)
    if len(tied) > 1:
        return _("cut for deal: %(cuts)s; %(names)s tie low and cut again", cuts=shown, names=names_and(tied))
    if is_you(tied[0]):
        return _("cut for deal: %(cuts)s; you deal", cuts=shown)
    return _("cut for deal: %(cuts)s; %(name)s deals", cuts=shown, name=tied[0])


def starter_line(hand: int, card: str | None, heels: int, dealer: str) -> str:
    """``"hand 2 starter JD: his heels, 2 for Ann"``; ``card`` None when not entered."""
    number, points = digits(hand), digits(heels)
    if card is None:
        if heels:
            return _("hand %(hand)s: starter not entered; his heels, %(points)s for %(name)s",
                     hand=number, points=points, name=dealer)
        return _("hand %(hand)s: starter not entered", hand=number)
    if heels:
        return _("hand %(hand)s starter %(card)s: his heels, %(points)s for %(name)s",
                 hand=number, card=card, points=points, name=dealer)
    return _("hand %(hand)s starter %(card)s", hand=number, card=card)


def pegs_line(name: str, points: int) -> str:
    """``"Bob pegs 2"``: play points entered as a number."""
    if is_you(name):
        return _("you peg %(points)s", points=digits(points))
    return _("%(name)s pegs %(points)s", name=name, points=digits(points))


def play_line(
    plays: str, pegged: tuple[tuple[str, int], ...], names: tuple[str, ...], muggins: bool,
    claims: tuple[tuple[int, int], ...], true: tuple[tuple[int, int], ...],
) -> str:
    """``"the play: Ann:5H Bob:TS; Bob 2"``, with the play's under-claims."""
    if pegged:
        who = ", ".join(_("%(name)s %(points)s", name=name, points=digits(p)) for name, p in pegged)
        text = _("the play: %(plays)s; %(pegged)s", plays=plays, pegged=who)
    else:
        text = _("the play: %(plays)s; nothing pegged", plays=plays)
    return text + claim_notes(names, muggins, dict(claims), dict(true))


def count_line(
    name: str, crib: bool, points: int, cards: str | None, starter: str | None, score: Score | None,
    claim: int | None, muggins: bool,
) -> str:
    """``"Bob's hand 5H 5C 5S JD with 5D: 29 (fifteen two, ...)"``, ``"Ann's crib: 4"``, with an
    under-claim's note."""
    total = digits(points)
    you = is_you(name)
    if score is None or cards is None:
        if you and crib:
            text = _("your crib: %(points)s", points=total)
        elif you:
            text = _("your hand: %(points)s", points=total)
        elif crib:
            text = _("%(name)s's crib: %(points)s", name=name, points=total)
        else:
            text = _("%(name)s's hand: %(points)s", name=name, points=total)
    elif you and crib:
        text = _("your crib %(cards)s with %(starter)s: %(points)s (%(spoken)s)", cards=cards,
                 starter=starter, points=total, spoken=score.spoken())
    elif you:
        text = _("your hand %(cards)s with %(starter)s: %(points)s (%(spoken)s)", cards=cards,
                 starter=starter, points=total, spoken=score.spoken())
    elif crib:
        text = _("%(name)s's crib %(cards)s with %(starter)s: %(points)s (%(spoken)s)", name=name,
                 cards=cards, starter=starter, points=total, spoken=score.spoken())
    else:
        text = _("%(name)s's hand %(cards)s with %(starter)s: %(points)s (%(spoken)s)", name=name,
                 cards=cards, starter=starter, points=total, spoken=score.spoken())
    if claim is not None and claim < points:
        if muggins:
            return _("%(line)s; claimed %(claim)s: %(open)s open to muggins", line=text, claim=digits(claim),
                     open=digits(points - claim))
        return _("%(line)s; claimed %(claim)s, corrected to %(points)s", line=text, claim=digits(claim),
                 points=total)
    return text


def award_words(kind: str, points: int) -> str:
    """``"pair 2"``: one award of the play, by its kind."""
    label = _(_PLAY_KINDS[kind]) if kind in _PLAY_KINDS else kind
    return _("%(kind)s %(points)s", kind=label, points=digits(points))


def muggins_line(name: str, award: int, victim: str, target: int, claimed: int, missed: int) -> str:
    """``"muggins! Ann takes 4 Bob missed in #2"``, saying so when the claim was more."""
    if is_you(name) and award < claimed:
        return _("muggins! you take %(points)s %(victim)s missed in #%(seq)s (claimed %(claim)s; only "
                 "%(missed)s was missed)", points=digits(award), victim=victim, seq=digits(target),
                 claim=digits(claimed), missed=digits(missed))
    if is_you(name):
        return _("muggins! you take %(points)s %(victim)s missed in #%(seq)s", points=digits(award),
                 victim=victim, seq=digits(target))
    if award < claimed:
        return _("muggins! %(name)s takes %(points)s %(victim)s missed in #%(seq)s (claimed %(claim)s; only "
                 "%(missed)s was missed)", name=name, points=digits(award), victim=victim, seq=digits(target),
                 claim=digits(claimed), missed=digits(missed))
    return _("muggins! %(name)s takes %(points)s %(victim)s missed in #%(seq)s", name=name,
             points=digits(award), victim=victim, seq=digits(target))


def correction_line(who: str, points: int, reason: str) -> str:
    """``"correction: Bob +5 (pegged short)"``."""
    signed = f"+{digits(points)}" if points > 0 else digits(points)
    return _("correction: %(name)s %(points)s (%(reason)s)", name=who, points=signed, reason=reason)


def next_game_line(game: int, dealer: str) -> str:
    """``"game 2: Bob deals first"``."""
    if is_you(dealer):
        return _("game %(game)s: you deal first", game=digits(game))
    return _("game %(game)s: %(name)s deals first", game=digits(game), name=dealer)


def settings_line(renamed: tuple[tuple[str, str], ...], scores_only: bool | None) -> str:
    """``"settings: You is now Ann; scores only, no cards"``: ``scores_only`` None when unchanged."""
    changes = [_("%(old)s is now %(new)s", old=old, new=new) for old, new in renamed]
    if scores_only is not None:
        changes.append(_("scores only, no cards") if scores_only else _("cards entered again"))
    return _("settings: %(changes)s", changes="; ".join(changes))


def undo_line(target: int, line: Said, reason: str) -> str:
    """``"undo #3: Ann's hand: 6 (that was Bob's count)"``."""
    if reason:
        return _("undo #%(seq)s: %(line)s (%(reason)s)", seq=digits(target), line=str(line), reason=reason)
    return _("undo #%(seq)s: %(line)s", seq=digits(target), line=str(line))

"""Card emojis: the faces the board's buttons show, read at about 20 px, and a sheet to look at them."""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFont

from ..cards import Card
from ..style import FOUR_COLOUR_SUITS, Deck
from .geometry import BACK_EDGE, BACK_FIELD, BACK_LINES, BAND, BLACK, FACE, FACE_EDGE, MUTED, RED
from .sprites import load_font, rounded_mask

EMOJI_SIZE = 128  # Discord shows a button's emoji at about 20 px: everything is drawn about six times larger
EMOJI_RADIUS = 18
EMOJI_EDGE = 5  # the card's outline: about 1 px at 20 px, so a white card stays a card on a light button


def _emoji_card(fill: tuple[int, int, int], edge: tuple[int, int, int]) -> Image.Image:
    """A card that fills the square (transparent corners): on a button, width is worth more than shape."""
    image = Image.new("RGBA", (EMOJI_SIZE, EMOJI_SIZE), (0, 0, 0, 0))
    box = (0, 0, EMOJI_SIZE - 1, EMOJI_SIZE - 1)
    ImageDraw.Draw(image).rounded_rectangle(box, EMOJI_RADIUS, fill=fill, outline=edge, width=EMOJI_EDGE)
    return image


def _emoji_text(
    image: Image.Image,
    text: str,
    box: tuple[int, int, int, int],
    font: ImageFont.FreeTypeFont,
    fill: tuple[int, int, int],
) -> None:
    """``text`` scaled to the height of ``box`` and centred in it, squeezed sideways when it is too wide."""
    left, top, right, bottom = (round(edge) for edge in font.getbbox(text))
    run = Image.new("L", (right - left, bottom - top), 0)
    ImageDraw.Draw(run).text((-left, -top), text, font=font, fill=255)
    width, height = box[2] - box[0], box[3] - box[1]
    scale = height / run.height
    size = (min(width, round(run.width * scale)), round(run.height * scale))
    if size != run.size:
        run = run.resize(size, Image.Resampling.LANCZOS)
    x = box[0] + (width - run.width) // 2
    y = box[1] + (height - run.height) // 2
    image.paste(Image.new("RGBA", run.size, fill), (x, y), run)


def _png_rgba(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False, compress_level=6)
    return out.getvalue()


def card_emoji(card: Card, rank: str | None = None, deck: Deck = Deck.CLASSIC) -> bytes:
    """A card face as a 128×128 PNG emoji: its rank (``rank``, a language's letter, or the English one)
    over its suit, both as large as the square allows, in the deck's colour of its suit as on the board."""
    image = _emoji_card(FACE, FACE_EDGE)
    classic = RED if card.is_red else BLACK
    colour = classic if deck is Deck.CLASSIC else FOUR_COLOUR_SUITS[card.suit]
    text = rank or card.rank_name
    inner = EMOJI_EDGE + 4
    _emoji_text(image, text, (inner, inner + 2, EMOJI_SIZE - inner, 60), load_font(120), colour)
    _emoji_text(
        image, card.suit_symbol, (inner, 66, EMOJI_SIZE - inner, EMOJI_SIZE - inner), load_font(120, bold=False), colour
    )
    return _png_rgba(image)


def back_emoji() -> bytes:
    """The card back (the stock) as a 128×128 PNG emoji: the board's back, its stripes widened."""
    image = _emoji_card(BACK_EDGE, FACE_EDGE)
    field_size = EMOJI_SIZE - 2 * 14
    field = Image.new("RGB", (field_size, field_size), BACK_FIELD)
    lines = ImageDraw.Draw(field)
    for offset in range(-field_size, field_size, 24):
        lines.line((offset, 0, offset + field_size, field_size), fill=BACK_LINES, width=8)
    image.paste(field, (14, 14), rounded_mask(field.size, EMOJI_RADIUS - 8))
    return _png_rgba(image)


def empty_waste_emoji() -> bytes:
    """The empty waste as a 128×128 PNG emoji: the board's empty place, a card's outline on the table
    (in the light shade of the board's muted text, so that it stands out on a green button too)."""
    image = _emoji_card(BAND, MUTED)
    ImageDraw.Draw(image).rounded_rectangle(
        (0, 0, EMOJI_SIZE - 1, EMOJI_SIZE - 1), EMOJI_RADIUS, outline=MUTED, width=12
    )
    return _png_rgba(image)


def emoji_sheet(images: Sequence[bytes], sizes: Sequence[int] = (20, 40)) -> bytes:
    """The emojis as Discord shows them on buttons: at each of ``sizes``, on a grey, a blue and a green
    button (the secondary, primary and success styles), for looking at (``tests/reference/``)."""
    buttons = ((78, 80, 88), (88, 101, 242), (36, 128, 70))
    columns = 18
    decoded = [Image.open(io.BytesIO(data)).convert("RGBA") for data in images]
    rows = -(-len(decoded) // columns)
    pad = 6
    height = sum(len(buttons) * rows * (size + 2 * pad) for size in sizes)
    width = max(columns * (size + 2 * pad) for size in sizes)
    sheet = Image.new("RGB", (width, height), (49, 51, 56))  # Discord's dark message background
    y = 0
    for size in sizes:
        small = [image.resize((size, size), Image.Resampling.LANCZOS) for image in decoded]
        cell = size + 2 * pad
        for colour in buttons:
            for row in range(rows):
                ImageDraw.Draw(sheet).rectangle((0, y, columns * cell - 1, y + cell - 1), fill=colour)
                for column, image in enumerate(small[row * columns : (row + 1) * columns]):
                    sheet.paste(image, (column * cell + pad, y + pad), image)
                y += cell
    out = io.BytesIO()
    sheet.save(out, format="PNG", optimize=True)
    return out.getvalue()

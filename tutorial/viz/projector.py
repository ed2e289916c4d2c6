"""The projector every live demo is sized for: the deck is shown at 1280x720, where its own
text is 24-36 px and a demo's smallest text is :data:`TEXT_PX`, what the back of a room
still reads. Each widget draws its text at this size (notebooks show it as it is), and
makes room for a label by :func:`text_width`.

>>> TEXT_PX, round(text_width("1438"), 1)
(18, 43.2)
"""

TEXT_PX = 18
CHAR_EM = 0.6       # a character's width in em: a monospace one's, a generous guess for sans


def text_width(text, px=TEXT_PX):
    """Pixels a label ``text`` takes at ``px`` (generous: room to spare, never too little)."""
    return CHAR_EM * px * len(text)

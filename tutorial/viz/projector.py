"""The projector every live demo is sized for: the deck is shown at 1280x720, where its own
text is 24-36 px and a demo's smallest text is :data:`TEXT_PX`, what the back of a room
still reads. Each widget draws its text at this size (notebooks show it as it is).

>>> TEXT_PX
18
"""

TEXT_PX = 18

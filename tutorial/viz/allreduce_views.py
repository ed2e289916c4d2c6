"""The allreduce in two views: the network on one clock, and the chunk table step by step.

>>> views = allreduce_views(nodes=4)
>>> [views.get_title(i) for i in range(2)]
['network, timed', 'chunks, step by step']
"""

from tutorial.viz.allreduce_anim import allreduce_animation
from tutorial.viz.allreduce_network import allreduce_network


def allreduce_views(nodes=16, table_nodes=7, network_model=None, table_model=None):
    """Tabs: :func:`allreduce_network` at ``nodes``, then :func:`allreduce_animation` at
    ``table_nodes``."""
    import ipywidgets as w

    tabs = w.Tab([allreduce_network(network_model, nodes=nodes),
                  allreduce_animation(table_model, nodes=table_nodes)])
    tabs.set_title(0, "network, timed")
    tabs.set_title(1, "chunks, step by step")
    return tabs

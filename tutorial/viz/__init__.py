"""Widgets and plots. Each widget separates a pure model (computed once) from a view
that only draws it; callbacks look things up, they never recompute.

- ``race``               optimizers racing on a 2-D surface (lr and momentum sliders)
- ``quiz``               quiz questions with feedback
- ``dashboard``          live data-parallel training: controls, Run/Stop, curves
- ``dashboard_curves``   its curves: loss, accuracy, throughput, the split of step time
- ``topology``           where to draw each node of an allreduce, and its links
- ``network_timeline``   when each transfer of a schedule leaves and lands on the α-β-γ clock
- ``network_svg``        one algorithm's network at one moment, as SVG
- ``allreduce_network``  the four topologies, their messages moving on one shared clock
- ``allreduce_anim``     the chunk table: the four schedules step by step
- ``allreduce_views``    both allreduce views in two tabs
- ``allreduce_plots``    static plots: modelled time, measured bandwidth against the model
"""

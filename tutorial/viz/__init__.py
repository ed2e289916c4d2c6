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
- ``cluster_button``     a real cluster (ps-lite or Horovod) behind a Start button, deadline shown
- ``sweep_view``         the large-batch sweep revealed one batch size at a time
- ``straggler_model``    sync against async SGD under one straggler, every slowdown computed once
- ``straggler_view``     the straggler slider: who waits in sync SGD, what async pays instead
- ``pipeline_plots``     Gantt charts of pipeline schedules, and the micro-batch sweep
- ``pipeline_anim``      the pipeline schedules animated (Play, stages, micro-batches)
- ``overlap_timeline``   a step's compute and communication lanes (notebook 13's overlap)
- ``engine_timeline``    one step on MXNet's profiler timeline: a lane per engine thread
- ``log_axes``           log axes labelled at 1, 2, 5 of each decade in plain numbers
- ``roofline_plot``      the roofline and where the course's operations sit on it
- ``throughput_button``  the ResNet's images/s on 1, 2, 4 devices, measured from a button
- ``run_buttons``        the Start/Stop buttons and the one background run the widgets share
- ``projector``          the size every demo's text is drawn at: 18 px on a 1280x720 projector
- ``saved_frame``        one broken-link mark per widget shown from a notebook's saved frame
- ``memory_model``       per-device bytes under ZeRO, tensor parallelism, recomputation,
                         precision: every setting of the memory demo, counted once
- ``memory_view``        the memory demo: stacked bars per ZeRO stage, its controls, Run
- ``memory_run``         real ZeRO-1 steps, each device's measured bytes beside the count
- ``ring_attention_anim``  ring attention step by step: the attention matrix filling in as
                         key/value blocks travel the ring, each device's softmax share
- ``all_to_all_anim``    the all-to-all step by step: each node's rows leaving for their
                         destinations (expert parallelism's token exchange)
"""

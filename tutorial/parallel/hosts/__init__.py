"""Training on several machines: a host list, processes started over ssh, clean stops.

- ``hostlist``   ``"10.0.0.1:2,10.0.0.2:2"``: parsed and checked, as ``horovodrun -H`` takes it
- ``placement``  which host runs the scheduler, each server and each worker (a plan as data)
- ``remote``     the command template (``ssh {host} {command}``), the command it runs, the
                 probe of every host before a run, and starting one process on its host
- ``tether``     the wrapper that stops a remote process when its launcher goes away
- ``results``    a remote worker's result, sent back through its log
- ``pslite``     a parameter-server cluster over the hosts (``train_on_cluster(hosts=...)``)
- ``horovod``    Horovod's ring over the hosts (``train_with_horovod(hosts=..., interface=...)``)
"""

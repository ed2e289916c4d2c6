"""Host lists, placements and command templates: parsed, checked, and refused with a sentence.

Nothing here starts a process; tests/parallel/test_hosts_namespaces.py runs real clusters.
"""

import pytest

from tutorial.parallel.hosts.hostlist import Host, format_hosts, parse_hosts, total_slots
from tutorial.parallel.hosts.placement import place
from tutorial.parallel.hosts.remote import (check_interface, check_template, is_local,
                                            remote_argv, shell_command, template_for)
from tutorial.parallel.ps.train import train_on_cluster


@pytest.mark.parametrize("text, hosts", [
    ("10.0.0.1:2,10.0.0.2:2", [("10.0.0.1", 2), ("10.0.0.2", 2)]),
    (" gpu-a:8 , gpu-b ", [("gpu-a", 8), ("gpu-b", 1)]),
    ("localhost", [("localhost", 1)]),
    ("a.example.org:1024", [("a.example.org", 1024)]),
])
def test_host_lists_are_read_in_order_with_their_slots(text, hosts):
    assert parse_hosts(text) == tuple(Host(*h) for h in hosts)
    assert parse_hosts(format_hosts(parse_hosts(text))) == parse_hosts(text)


@pytest.mark.parametrize("text, says", [
    ("", "the host list is empty"),
    ("   ", "the host list is empty"),
    ("a:2,,b:2", "has an empty entry"),
    ("a:2,", "has an empty entry"),
    ("a:0", "the slots after ':' must be a whole number from 1 to 1024"),
    ("a:-1", "the slots after ':' must be a whole number from 1 to 1024"),
    ("a:two", "got 'two'"),
    ("a:", "got ''"),
    ("a:1025", "from 1 to 1024"),
    ("a:²", "got '²'"),
    ("fe80::1:2", "IPv6 addresses are not supported"),
    (":2", "'' in the host list ':2' is not a hostname or an IPv4 address"),
    ("a b:2", "'a b' in the host list"),
    ("a;reboot:2", "is not a hostname"),
    ("-oProxyCommand=x:1", "is not a hostname"),
    ("user@a:2", "is not a hostname"),
    ("a:1,b:2,a:3", "host 'a' appears twice .* e.g. 'a:4'"),
    ("a..b:1", "a hostname is dot-separated names"),
    ("node-.x:1", "none starting or ending with '-'"),
    ("1.2.3.4.5:1", "an IPv4 address has four numbers from 0 to 255"),
    ("999.1.1.1:1", "an IPv4 address has four numbers from 0 to 255"),
    ("H:1,h:2", r"'H' and 'h' name the same machine \(names ignore case\).* e.g. 'H:3'"),
    ("localhost:1,127.0.0.1:1", r"'localhost' and '127.0.0.1' name the same machine \(this "
                                r"one\)"),
])
def test_bad_host_lists_are_refused_with_a_sentence(text, says):
    with pytest.raises(ValueError, match=says):
        parse_hosts(text)


@pytest.mark.parametrize("value", [None, 3, ["a:2"], b"a:2"])
def test_a_host_list_must_be_text(value):
    with pytest.raises(ValueError, match="hosts must be a string of host:slots"):
        parse_hosts(value)


def test_workers_fill_the_slots_in_order_and_servers_go_round_the_hosts():
    hosts = parse_hosts("a:1,b:3,c:1")
    rows = place(hosts, num_servers=4)
    assert [r.host for r in rows if r.role == "worker"] == ["a", "b", "b", "b", "c"]
    assert [r.host for r in rows if r.role == "server"] == ["a", "b", "c", "a"]
    assert [r for r in rows if r.role == "scheduler"] == [("scheduler", 0, "a")]
    assert len([r for r in rows if r.role == "worker"]) == total_slots(hosts)


def test_fewer_workers_than_slots_use_the_first_slots():
    rows = place(parse_hosts("a:2,b:2"), num_workers=3, num_servers=1)
    assert [(r.role, r.index, r.host) for r in rows] == [
        ("scheduler", 0, "a"), ("server", 0, "a"),
        ("worker", 0, "a"), ("worker", 1, "a"), ("worker", 2, "b")]


@pytest.mark.parametrize("workers, servers, says", [
    (5, None, "num_workers=5 is more than the 4 slots of the host list 'a:2,b:2'"),
    (0, None, "num_workers must be a whole number >= 1"),
    (None, 0, "num_servers must be a whole number >= 1"),
    (2.0, None, "num_workers must be a whole number >= 1"),
])
def test_impossible_placements_are_refused(workers, servers, says):
    with pytest.raises(ValueError, match=says):
        place(parse_hosts("a:2,b:2"), workers, servers)


def test_the_command_is_one_argument_whatever_it_contains():
    command = shell_command(["python", "-c", "print('a b; c')"], {"X": "1 2"}, "/c o")
    argv = remote_argv("ip netns exec ns_{host} sh -c {command}", "10.0.0.2", command)
    assert argv == ["ip", "netns", "exec", "ns_10.0.0.2", "sh", "-c", command]
    assert command == "cd '/c o' && exec env 'X=1 2' python -c 'print('\"'\"'a b; c'\"'\"')'"


@pytest.mark.parametrize("template, says", [
    ("ssh {host}", "must contain {command} as a word of its own"),
    ("ssh {host} {command} {command}", "must contain {command} as a word of its own"),
    ("ssh {host} x{command}", "must contain {command} as a word of its own"),
    ("ssh {hots} {command}", r"unknown field\(s\) \['hots'\]"),
    ("ssh '{host} {command}", "is not a valid command line"),
    (["ssh", "{host}", "{command}"], "template must be a string"),
])
def test_bad_templates_are_refused(template, says):
    with pytest.raises(ValueError, match=says):
        check_template(template)


def test_horovod_over_hosts_without_an_interface_is_refused_with_a_sentence():
    from tutorial.parallel.hvd.train import train_with_horovod
    job = object.__new__(type("J", (), {"to_json": None}))
    with pytest.raises(TypeError, match="train_with_horovod\\(hosts=...\\) needs interface=.*"
                                        "e.g. interface='ens5'"):
        train_with_horovod(job, hosts="10.0.0.1:1,10.0.0.2:1")
    with pytest.raises(TypeError, match=r"unexpected argument\(s\) \['iface'\]"):
        train_with_horovod(job, hosts="10.0.0.1:1", interface="eth0", iface="eth0")


def test_host_options_without_hosts_are_refused():
    with pytest.raises(TypeError, match="interface only apply with hosts="):
        train_on_cluster(object.__new__(type("J", (), {"to_json": None})), interface="eth0")
    with pytest.raises(TypeError, match=r"unexpected argument\(s\) \['interfaces'\]"):
        train_on_cluster(object.__new__(type("J", (), {"to_json": None})), hosts="a:1",
                         interfaces="eth0")


@pytest.mark.parametrize("interface", ["", "eth0 eth1", "a/b", "x" * 16, 3, None])
def test_bad_interface_names_are_refused(interface):
    with pytest.raises(ValueError, match="interface must be a network interface's name"):
        check_interface(interface)


def test_this_machine_is_local_and_a_documentation_address_is_not():
    assert is_local("127.0.0.1") and not is_local("192.0.2.1")
    assert template_for("127.0.0.1", "ssh {host} {command}") == "sh -c {command}"
    assert template_for("192.0.2.1", "ssh {host} {command}") == "ssh {host} {command}"


def test_every_process_learns_the_schedulers_address_and_its_own():
    from tutorial.parallel.hosts.pslite import _plan
    rows = place(parse_hosts("10.0.0.1:1,10.0.0.2:2"))
    plan = _plan(rows, 9091, "ens5", "/course", ["-m", "w"], ["-c", "import mxnet"], None)
    env = {(role, index): e for role, index, _, e in plan}
    assert {e["DMLC_PS_ROOT_URI"] for e in env.values()} == {"10.0.0.1"}
    assert [env["worker", i]["DMLC_NODE_HOST"] for i in range(3)] == [
        "10.0.0.1", "10.0.0.2", "10.0.0.2"]
    assert env["server", 1]["DMLC_NODE_HOST"] == "10.0.0.2"
    assert all(e["DMLC_INTERFACE"] == "ens5" and e["DMLC_NUM_WORKER"] == "3"
               and e["DMLC_NUM_SERVER"] == "2" and e["DMLC_PS_ROOT_PORT"] == "9091"
               for e in env.values())
    assert [argv for role, _, argv, _ in plan if role == "worker"] == [("-m", "w")] * 3


def test_horovod_over_hosts_needs_a_rendezvous_on_this_machine():
    from tutorial.parallel.hosts.horovod import run_horovod_on_hosts
    with pytest.raises(ValueError, match="this machine is none of the hosts '192.0.2.1:1'"):
        run_horovod_on_hosts(["-c", "pass"], "192.0.2.1:1", interface="eth0")
    with pytest.raises(ValueError, match="rendezvous_address='192.0.2.9' is not one of"):
        run_horovod_on_hosts(["-c", "pass"], "192.0.2.1:1", interface="eth0",
                             rendezvous_address="192.0.2.9")
    with pytest.raises(ValueError, match="num_ranks=3 is more than the 2 slots"):
        run_horovod_on_hosts(["-c", "pass"], "192.0.2.1:2", interface="eth0", num_ranks=3)


def test_an_interface_this_machine_lacks_is_refused_when_it_is_one_of_the_hosts():
    with pytest.raises(ValueError, match="this machine has no network interface 'bogus0' "
                                         "\\(it has .*lo"):
        check_interface("bogus0", parse_hosts("127.0.0.1:1"))
    assert check_interface("bogus0", parse_hosts("192.0.2.1:1")) == "bogus0"   # not ours to see
    assert check_interface("lo", parse_hosts("127.0.0.1:1")) == "lo"


def test_the_launchers_refuse_an_unknown_interface_before_starting_anything():
    from tutorial.parallel.hosts.pslite import run_cluster_on_hosts
    with pytest.raises(ValueError, match="no network interface 'bogus0'"):
        run_cluster_on_hosts(["-c", "pass"], "127.0.0.1:1", interface="bogus0")
    with pytest.raises(ValueError, match="no network interface 'bogus0'"):
        train_on_cluster(object.__new__(type("J", (), {"to_json": lambda self: "{}",
                                                       "steps": 1})),
                         hosts="127.0.0.1:1", interface="bogus0")

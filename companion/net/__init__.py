"""Playing on a network: this machine's addresses, and finding a table by mDNS.

* :mod:`companion.net.addresses`: which of the machine's addresses phones and nodes
  should use (the one with the default route unless the user names one), checked
  choices, and the URL a phone opens. Standard library and ifaddr only.
* :mod:`companion.net.discovery`: the hub announces its pages (``_http._tcp``) and
  its broker (``_mqtt._tcp``) as ``table-<table>`` with python-zeroconf; simulated
  nodes, the serial bridge and the Pi node find them (``find_broker``,
  ``find_tables``, ``TableWatcher``). The MicroPython node has its own small mDNS
  query in ``firmware/micropython/mdns.py``.

Nothing here runs at import time: addresses are read and sockets opened only when
a function is called.
"""

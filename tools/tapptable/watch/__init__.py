"""``tapptable watch PORT [PORT ...]``: the evening on every phone (docs/watch.md).

One console client per table (``table_link.py``) follows it as the people
round it see it (``public.py``) and puts every settled session into the
history (``history.py``, SQLite); a web page on the LAN (``server.py``,
``static/``) shows every table live, the past evenings and the season's
leaderboard; with ``--mqtt`` several watchers share one broker and one
page (``mqtt_bridge.py``).  ``cli.py`` parses the arguments, ``run`` here
puts the parts together.
"""
import asyncio
import errno
import os
import socket
import sys

DEFAULT_WEB_PORT = 8766


def default_db():
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                           "share")
    return os.path.join(base, "tapptable", "history.sqlite3")


def parse_ports(specs):
    """``[NAME=]PORT`` each -> [(name, port)]; ValueError with the reason."""
    from tools.tapptable.console import short_name
    out = []
    for spec in specs:
        name, eq, port = spec.partition("=")
        if not eq or "://" in name:
            name, port = "", spec
        port = short_name(port.strip())
        if not port:
            raise ValueError("%r: no port (NAME=PORT or PORT)" % spec)
        name = name.strip() or port.rstrip("/").split("/")[-1] or port
        if any(p == port for _n, p in out):
            raise ValueError("%s is given twice: one watcher per port" % port)
        if any(n == name for n, _p in out):
            raise ValueError("two tables are named %r: name them NAME=PORT" % name)
        out.append((name[:64], port))
    return out


def lan_addresses():
    """This machine's IPv4 addresses other than loopback (no packet is sent)."""
    found = []
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            addr = info[4][0]
            if not addr.startswith("127.") and addr not in found:
                found.append(addr)
    except OSError:
        pass
    return found


def page_urls(host, port):
    if host in ("0.0.0.0", "", "::"):
        hosts = lan_addresses() or ["127.0.0.1"]
    else:
        hosts = [host]
    return ["http://%s:%d/" % (h if ":" not in h else "[%s]" % h, port) for h in hosts]


def print_qr(url, out):
    """The page's address as a QR code made of half blocks (segno)."""
    import segno
    segno.make(url, error="m").terminal(out=out, compact=True)


def run(args):
    """``tapptable watch``: serve until Ctrl+C; exit 2 with one line when it cannot."""
    from .club import Club
    from .history import History, HistoryError
    from .public import TablePicture
    from .server import WatchWeb, start
    from .table_link import Refused, TableWatcher

    def fail(msg):
        print("tapptable watch: %s" % msg, file=sys.stderr)
        return 2

    def log(msg):
        print(msg, file=sys.stderr, flush=True)
    try:
        ports = parse_ports(args.ports)
    except ValueError as exc:
        return fail(str(exc))
    if not 0.05 <= args.poll <= 10:
        return fail("--poll: seconds from 0.05 to 10, not %s" % args.poll)
    pin = args.pin or os.environ.get("TAPPTABLE_PIN")
    if not ports and not args.mqtt:
        return fail("nothing to watch: give a table's PORT (or --mqtt HOST to show the tables "
                    "other watchers publish)")
    db = args.db or default_db()
    try:
        if db != ":memory:":
            os.makedirs(os.path.dirname(os.path.abspath(db)), exist_ok=True)
        history = History(db)
    except (HistoryError, OSError) as exc:
        return fail(str(exc))
    name = args.name or socket.gethostname() or "watch"
    club = Club(history, name)
    watchers = []
    try:
        for table, port in ports:
            picture = TablePicture(table, port)
            club.add_local(picture)
            w = TableWatcher(port, picture, history, name, pin=pin, poll_s=args.poll,
                             log=log)
            w.on_change = club.changed
            watchers.append(w)
            w.connect_first()
    except Refused as exc:
        for w in watchers:
            w.close()
        return fail(str(exc))
    bridge = None
    if args.mqtt:
        from .mqtt_bridge import Bridge
        host, _, mport = args.mqtt.partition(":")
        if mport and not mport.isdigit():
            return fail("--mqtt HOST[:PORT]: %r is no port number" % mport)
        bridge = Bridge(club, host, int(mport or 1883), args.club, log=log)
        bridge.start()
    for w in watchers:
        w.start()
    code = asyncio.run(_serve(WatchWeb(club), args, ports, db, start, fail))
    for w in watchers:
        w.close()
    if bridge is not None:
        bridge.close()
    history.close()
    return code


async def _serve(watch_web, args, ports, db, start, fail):
    try:
        runner, port = await start(watch_web, args.web_host, args.web_port)
    except OSError as exc:
        why = "the port is in use; choose another with --web-port" \
            if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
        return fail("cannot listen on %s:%d: %s" % (args.web_host, args.web_port, why))
    urls = page_urls(args.web_host, port)
    print("Watching %s; history in %s" % (", ".join("%s (%s)" % t for t in ports) or
                                          "the tables published to --mqtt", db), flush=True)
    for url in urls:
        print("The page: %s" % url, flush=True)
    if not args.no_qr:
        print_qr(urls[0], sys.stdout)
    print("Ctrl+C stops.", flush=True)
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        pass
    finally:
        await runner.cleanup()
    return 0

"""Who may do what on the web: the host, each player's phone, and everyone else.

Three kinds of visitor (docs/running.md, "Who may do what"):

- **the host** holds the admin token: a browser on the hub machine itself (a loopback
  address, with a ``Host`` that names this machine, so a DNS-rebinding page cannot pass),
  or a device where someone typed the table PIN at ``/host`` (the token then lives in an
  HttpOnly, SameSite=Strict cookie);
- **a player's phone** holds that player's token: the QR code opens
  ``<public_url>/play/<id>?t=TOKEN`` (``id``: the player's ASCII id, ``companion.rules.setup.player_id``),
  which puts the token in an HttpOnly cookie for that page only and redirects to ``/play/<id>``, so
  the token leaves the address bar at once;
- **a spectator** holds nothing: every page and every read works, no change does.

A change (any method but GET/HEAD/OPTIONS) is refused with 403 when ``Origin`` or
``Sec-Fetch-Site`` names another site, whoever sends it. Otherwise it is taken only from the
hub machine itself or with a token in the :data:`HEADER` header, which the pages' scripts
send and another site's page cannot; a cookie alone never changes anything. The host's
and players' pages carry their own token (and no one else's) for their scripts. Tokens are
never part of ``/api/state`` or a stream, and :class:`RedactTokens` blanks ``?t=`` in the
web server's access log.

A refusal is an :class:`AccessDeniedError` whose message is a text: pages show it in their
language, the API answers ``{"ok": false, "error": English, "message": text}``.

The runtime reads the PIN from :func:`access_of` (``access_of(app).pin``) to print it,
and sets :attr:`AccessControl.public_url` once it knows the address phones should use.
"""

from __future__ import annotations

import functools
import hmac
import ipaddress
import logging
import math
import re
import secrets
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar, cast
from urllib.parse import quote, urlencode, urlsplit

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    g,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.wrappers import Response as BaseResponse

from companion.errors import CompanionError, ConfigError
from companion.hub.bodies import read_json
from companion.hub.extensions import session_of
from companion.rules.setup import find_player, player_id
from companion.rules.text import Text, as_text, text
from companion.table.model import TableReset
from companion.table.session import Changed, News

log = logging.getLogger(__name__)

EXTENSION = "companion.auth"

HEADER = "X-Companion-Token"
"""The header that carries a token with every change; a page of another site cannot set it."""

HOST_COOKIE = "companion_host"
"""The admin token on a device where the PIN was typed (HttpOnly, SameSite=Strict, path /)."""

PLAYER_COOKIE = "companion_player"
"""A player's token on that player's phone (HttpOnly, SameSite=Lax, path ``/play/<id>`` only)."""

JOIN_PARAM = "t"
"""The query parameter of a join link: ``/play/<id>?t=<token>``."""

HOST = "host"
PLAYER = "player"
SPECTATOR = "spectator"

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

PIN_DIGITS = 6
PIN_TRIES = 5
"""Wrong PINs one client may type per :data:`PIN_WINDOW_S`; the next try is answered 429."""
PIN_TRIES_ALL = 30
"""Wrong PINs all clients together may type per window (many addresses cannot guess faster)."""
PIN_WINDOW_S = 60.0

TOKEN_BYTES = 18
"""Random bytes of a token (24 URL-safe characters)."""

COOKIE_MAX_AGE_S = 12 * 3600
"""A cookie outlives an evening's games; a new hub start makes new tokens anyway."""

# What a refused visitor reads (translated by the hub's catalogs, companion/i18n/*.json).
NOT_HOST = text("Only the host can do this: on the host's device, type the table PIN at /host")
WATCH_ONLY = text("This page can only watch: to play, scan your QR code on the host's screen")
STALE = text(
    "This code is no longer valid (it was replaced, or it belongs to an earlier game): ask the host for a new QR code"
)
CROSS_SITE = text("Refused a request that came from another site")
WRONG_PIN = text("That PIN is wrong: the table PIN is shown on the hub's own screen")


def other_player(player: str) -> Text:
    """A phone tried to act for another player than its own."""
    return text("This phone can act only for {player}", player=player)


def too_many_pins(seconds: int) -> Text:
    return text("Too many wrong PINs: wait {seconds} s and try again", seconds=seconds)


def no_code(player: str) -> Text:
    """The host asked for the join link of a player whose code was revoked."""
    return text("{player} has no phone code now: issue a new one first", player=player)


def no_player(player: str) -> Text:
    """The sentence of :class:`UnknownPlayerError`."""
    return text("There is no player “{player}” at this table.", player=player)


class AccessDeniedError(CompanionError, PermissionError):
    """A request this visitor may not make: answered ``status`` (403, or 429 for too many PINs)."""

    def __init__(self, message: Text | str, status: int = 403, *, retry_after_s: float | None = None) -> None:
        super().__init__(str(message))
        self.text = as_text(message)
        """What the visitor reads, translated where it is shown."""
        self.status = status
        self.retry_after_s = retry_after_s


class UnknownPlayerError(CompanionError, LookupError):
    """A path names no player of this table (by name or id): a 404 on every route."""

    def __init__(self, player: str) -> None:
        self.player = player
        self.text = no_player(player)
        super().__init__(str(self.text))


@dataclass(frozen=True)
class Access:
    """Who made the current request, as far as the hub can tell."""

    role: str
    """:data:`HOST`, :data:`PLAYER` or :data:`SPECTATOR`."""
    player: str | None = None
    """The player whose token was offered (role :data:`PLAYER`)."""
    via: str = ""
    """How: ``loopback`` (the hub machine itself), ``header``, ``cookie``, or empty."""
    token: str = ""
    """The token this visitor holds, for the page it gets (empty for a spectator)."""
    stale: bool = False
    """A token was offered that no longer works (revoked, replaced, or of an earlier game)."""

    @property
    def is_host(self) -> bool:
        return self.role == HOST

    def can_act_for(self, player: str) -> bool:
        return self.role == HOST or (self.role == PLAYER and self.player == player)


def _new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def _same(offered: str, token: str | None) -> bool:
    """Constant-time comparison of an offered token (any text) with a real one."""
    if token is None:
        return False
    return hmac.compare_digest(offered.encode("utf-8", "surrogatepass"), token.encode("utf-8"))


def normalize_public_url(url: str | None) -> str | None:
    """``http(s)://host[:port][/prefix]`` without a trailing slash; None or empty means "as loaded"."""
    if url is None or not url.strip():
        return None
    url = url.strip().rstrip("/")
    try:
        parts = urlsplit(url)
        hostname = parts.hostname
    except ValueError:
        hostname = None
        parts = None
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or not hostname
        or parts.query
        or parts.fragment
    ):
        raise ConfigError(f"public_url must be an address like http://192.168.1.20:8080, not {url!r}")
    return url


class PinGuard:
    """Wrong PINs counted per client address and in all, for the table PIN and the club PIN alike.

    After :data:`PIN_TRIES` wrong PINs from one address (or :data:`PIN_TRIES_ALL` from all) within
    :data:`PIN_WINDOW_S`, the PIN is not even checked until the oldest try is a window old: the
    answer is a 429 with the seconds to wait. Thread-safe; ``now`` is real seconds (never the game
    clock, which may run scaled)."""

    def __init__(self, *, now: Callable[[], float] = time.monotonic, what: str = "table") -> None:
        self.now = now
        self.what = what
        self._lock = threading.Lock()
        self._wrong: dict[str, deque[float]] = {}
        self._wrong_all: deque[float] = deque()

    def check(self, offered: str, pin: str, client: str, *, wrong: Text = WRONG_PIN) -> None:
        """Return if ``offered`` is ``pin``; raise :class:`AccessDeniedError` (403 wrong, 429 too many)."""
        with self._lock:
            now = self.now()
            wait = self._wait_s(client, now)
            if wait > 0:
                raise AccessDeniedError(too_many_pins(math.ceil(wait)), 429, retry_after_s=wait)
            if _same(offered.strip(), pin):
                self._wrong.pop(client, None)
                return
            self._wrong.setdefault(client, deque()).append(now)
            self._wrong_all.append(now)
        log.warning("a wrong %s PIN was typed from %s", self.what, client)
        raise AccessDeniedError(wrong)

    def _wait_s(self, client: str, now: float) -> float:
        """Seconds until ``client`` may try a PIN again (0: now). Call with the lock held."""
        horizon = now - PIN_WINDOW_S
        for key in list(self._wrong):
            tries = self._wrong[key]
            while tries and tries[0] <= horizon:
                tries.popleft()
            if not tries:
                del self._wrong[key]
        while self._wrong_all and self._wrong_all[0] <= horizon:
            self._wrong_all.popleft()
        wait = 0.0
        mine = self._wrong.get(client)
        if mine is not None and len(mine) >= PIN_TRIES:
            wait = mine[-PIN_TRIES] + PIN_WINDOW_S - now
        if len(self._wrong_all) >= PIN_TRIES_ALL:
            wait = max(wait, self._wrong_all[-PIN_TRIES_ALL] + PIN_WINDOW_S - now)
        return wait


class AccessControl:
    """The table PIN, the admin token and one token per player, made new at every hub start.

    Kept in ``app.extensions["companion.auth"]`` (:func:`access_of`). Player tokens are made
    new for every new game (:meth:`new_game`); the host can :meth:`revoke` or :meth:`reissue`
    one at any time, and the old token stops working at once. Thread-safe.
    """

    def __init__(
        self,
        players: Iterable[str],
        *,
        public_url: str | None = None,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.pin = f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"
        """The table PIN: typed at ``/host`` on another device, it makes that device the host."""
        self.admin_token = _new_token()
        self.guard = PinGuard(now=now)
        """Wrong PINs, counted (``guard.now``: real seconds for the rate limit)."""
        self._public_url = normalize_public_url(public_url)
        self._lock = threading.Lock()
        self._tokens: dict[str, str | None] = {player: _new_token() for player in players}

    @property
    def now(self) -> Callable[[], float]:
        """Real seconds for the PIN rate limit (never the game clock, which may run scaled)."""
        return self.guard.now

    @now.setter
    def now(self, now: Callable[[], float]) -> None:
        self.guard.now = now

    # --- addresses ---------------------------------------------------------------------------
    @property
    def public_url(self) -> str | None:
        """The address phones reach the hub at (``HubConfig.public_url``); None: the page's own."""
        return self._public_url

    @public_url.setter
    def public_url(self, url: str | None) -> None:
        self._public_url = normalize_public_url(url)

    def base_url(self, loaded_from: str | None = None) -> str:
        """:attr:`public_url`, else ``loaded_from`` (the address the current page came from)."""
        return self._public_url or (loaded_from or "").rstrip("/")

    def join_url(self, player: str, base_url: str | None = None) -> str | None:
        """What ``player``'s QR code opens: their phone page (at their id) with their token; None while revoked."""
        token = self.token_of(player)
        if token is None:
            return None
        return f"{self.base_url(base_url)}/play/{quote(player_id(player), safe='')}?{JOIN_PARAM}={token}"

    def host_url(self, base_url: str | None = None) -> str:
        """The page where another device types the PIN."""
        return f"{self.base_url(base_url)}/host"

    def pin_line(self, base_url: str | None = None) -> str:
        """One line for the terminal: the PIN and where to type it."""
        return f"Host PIN: {self.pin} (type it at {self.host_url(base_url)} to control the table from another device)"

    # --- player tokens -------------------------------------------------------------------------
    def token_of(self, player: str) -> str | None:
        with self._lock:
            return self._tokens.get(player)

    def player_tokens(self) -> dict[str, str | None]:
        """Every seated player's token (None while revoked)."""
        with self._lock:
            return dict(self._tokens)

    def player_for(self, token: str) -> str | None:
        """The player ``token`` belongs to, if it is valid now."""
        with self._lock:
            found = None
            for player, real in self._tokens.items():
                if _same(token, real):
                    found = player
            return found

    def is_admin_token(self, token: str) -> bool:
        return _same(token, self.admin_token)

    def reissue(self, player: str) -> str:
        """A new token for ``player`` (a lost phone, a swapped seat); the old one stops working."""
        token = _new_token()
        with self._lock:
            self._tokens[player] = token
        log.info("a new phone code was issued for %s", player)
        return token

    def revoke(self, player: str) -> None:
        """``player``'s token stops working; until :meth:`reissue`, no phone can act for them."""
        with self._lock:
            if player in self._tokens:
                self._tokens[player] = None
        log.info("the phone code of %s was revoked", player)

    def new_game(self, players: Iterable[str]) -> None:
        """Fresh tokens for the players of a new game; every earlier token stops working."""
        with self._lock:
            self._tokens = {player: _new_token() for player in players}

    # --- the PIN --------------------------------------------------------------------------------
    def check_pin(self, pin: str, client: str) -> str:
        """The admin token for the right PIN; raises :class:`AccessDeniedError` (403 wrong, 429 too many,
        see :class:`PinGuard`)."""
        self.guard.check(pin, self.pin, client)
        return self.admin_token


def access_of(app: Flask) -> AccessControl:
    """The access control of a hub built by ``create_app`` (``.pin``, ``.public_url``, tokens)."""
    control: AccessControl = app.extensions[EXTENSION]
    return control


# --- the current request ----------------------------------------------------------------------


def _request_hostname() -> str | None:
    try:
        return urlsplit("//" + request.host).hostname
    except ValueError:
        return None


def _names_this_machine(hostname: str | None) -> bool:
    """The ``Host`` a loopback request names is an address, localhost, this machine or the public URL's
    host: a page of another site that resolved its own name to 127.0.0.1 (DNS rebinding) is not trusted."""
    if not hostname:
        return False
    try:
        ipaddress.ip_address(hostname)
        return True
    except ValueError:
        pass
    machine = socket.gethostname().lower()
    trusted = {"localhost", machine, f"{machine}.local"}
    public = access_of(current_app).public_url
    if public:
        trusted.add((urlsplit(public).hostname or "").lower())
    return hostname in trusted or hostname.endswith(".localhost")


def is_loopback_client() -> bool:
    """The request comes from the hub machine itself (127.0.0.0/8 or ::1) and names this machine."""
    address = (request.remote_addr or "").split("%")[0]
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback and _names_this_machine(_request_hostname())


def _own_origins() -> set[str]:
    own = {f"{request.scheme}://{request.host}".lower()}
    control = current_app.extensions.get(EXTENSION)  # a club's lobby has none
    public = control.public_url if control is not None else None
    if public:
        parts = urlsplit(public)
        own.add(f"{parts.scheme}://{parts.netloc}".lower())
    return own


def is_cross_site() -> bool:
    """The browser says the request comes from a page of another site (``Sec-Fetch-Site``, ``Origin``).

    Requests without either header (scripts, the test client, old browsers) are not cross-site;
    they still need a token for a change unless they come from the hub machine itself.
    """
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site.strip().lower() not in ("same-origin", "none"):
        return True
    origin = request.headers.get("Origin")
    if origin is None:
        return False
    return origin.strip().rstrip("/").lower() not in _own_origins()


def _identify(control: AccessControl) -> Access:
    if is_loopback_client():
        return Access(HOST, via="loopback", token=control.admin_token)
    offered: list[tuple[str, str]] = []
    header = request.headers.get(HEADER, "").strip()
    if header:
        offered.append((header, "header"))
    elif request.method in SAFE_METHODS:  # a cookie identifies a page, never a change
        for name in (HOST_COOKIE, PLAYER_COOKIE):
            value = request.cookies.get(name, "").strip()
            if value:
                offered.append((value, "cookie"))
    for token, via in offered:
        if control.is_admin_token(token):
            return Access(HOST, via=via, token=token)
        player = control.player_for(token)
        if player is not None:
            return Access(PLAYER, player=player, via=via, token=token)
    return Access(SPECTATOR, stale=bool(offered))


def current_access() -> Access:
    """Who made the current request (worked out once per request)."""
    found: Access | None = g.get("companion_access")
    if found is None:
        found = _identify(access_of(current_app))
        g.companion_access = found
    return found


def require_host() -> Access:
    """The current request is the host's, or :class:`AccessDeniedError`."""
    access = current_access()
    if access.is_host:
        return access
    raise AccessDeniedError(STALE if access.stale else NOT_HOST)


def require_player(player: str) -> Access:
    """The current request may act for ``player``: the host, or ``player``'s own phone."""
    access = current_access()
    if access.can_act_for(player):
        return access
    if access.role == PLAYER and access.player is not None:
        raise AccessDeniedError(other_player(access.player))
    raise AccessDeniedError(STALE if access.stale else WATCH_ONLY)


def require_node_owner(node: str) -> Access:
    """The host, or the phone of the player whose seat ``node`` is (a simulated flip of one's own timer)."""
    access = current_access()
    if access.is_host:
        return access
    owner = next((seat.player for seat in session_of(current_app).setup.seats if seat.node == node), None)
    if owner is None:
        raise AccessDeniedError(STALE if access.stale else NOT_HOST)
    return require_player(owner)


def seated_player(wanted: str) -> str:
    """The name of the player a path names (their name or their id), or :class:`UnknownPlayerError`."""
    found = find_player(session_of(current_app).setup.players, wanted)
    if found is None:
        raise UnknownPlayerError(wanted)
    return found


F = TypeVar("F", bound=Callable[..., Any])


def host_only(view: F) -> F:
    """A view only the host may call (checked before the view reads anything)."""

    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        require_host()
        return view(*args, **kwargs)

    return cast(F, wrapped)


# --- pages and cookies ------------------------------------------------------------------------


def _client() -> str:
    return request.remote_addr or "unknown"


def _set_cookie(response: BaseResponse, name: str, token: str, *, path: str, samesite: str) -> None:
    response.set_cookie(
        name,
        token,
        max_age=COOKIE_MAX_AGE_S,
        path=path,
        httponly=True,
        samesite=samesite,
        secure=request.is_secure,
    )


def player_path(player: str) -> str:
    """The address of ``player``'s phone page (at their id), also the path of their cookie."""
    return url_for("play", player=player_id(player))


def join(player: str, offered: str) -> BaseResponse | None:
    """``/play/<id>?t=TOKEN``: the token goes into a cookie for that page only and the phone is
    sent on to the address without it. None when the token is not ``player``'s valid one."""
    control = access_of(current_app)
    if control.player_for(offered.strip()) != player:
        return None
    kept = urlencode([(k, v) for k, v in request.args.items(multi=True) if k != JOIN_PARAM])
    response = redirect(player_path(player) + ("?" + kept if kept else ""), 303)
    _set_cookie(response, PLAYER_COOKIE, offered.strip(), path=player_path(player), samesite="Lax")
    return response


def _safe_next(target: str | None) -> str:
    """Where to go after the PIN: a path on this hub only."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return request.script_root + "/"


bp = Blueprint("access", __name__)


@bp.get("/host")
def host_page() -> Any:
    return render_template(
        "host.html", is_host=current_access().is_host, error=None, next=_safe_next(request.args.get("next"))
    )


@bp.post("/host")
def host_login() -> Any:
    """The PIN form: the right PIN sets the host cookie; a wrong one is said on the form (403, 429)."""
    target = _safe_next(request.form.get("next"))
    try:
        token = access_of(current_app).check_pin(request.form.get("pin", ""), _client())
    except AccessDeniedError as exc:
        response = make_response(
            render_template("host.html", is_host=False, error=exc.text, next=target), exc.status
        )
        _retry_after(response, exc)
        return response
    redirected = redirect(target, 303)
    _set_cookie(redirected, HOST_COOKIE, token, path=request.script_root or "/", samesite="Strict")
    return redirected


@bp.post("/api/host")
def host_login_json() -> Any:
    """``{"pin": "123456"}`` → the admin token, for a script (and the cookie, for a browser)."""

    body = read_json('{"pin": "123456"}')
    pin = body.get("pin")
    if not isinstance(pin, str):
        message = 'send a JSON object like {"pin": "123456"}'
        return jsonify({"ok": False, "error": message, "message": message}), 400
    token = access_of(current_app).check_pin(pin, _client())
    response = jsonify({"ok": True, "token": token, "header": HEADER})
    _set_cookie(response, HOST_COOKIE, token, path=request.script_root or "/", samesite="Strict")
    return response


@bp.get("/api/whoami")
def whoami() -> Any:
    access = current_access()
    return jsonify({"ok": True, "role": access.role, "player": access.player, "stale": access.stale})


def _phone(player: str) -> dict[str, Any]:
    control = access_of(current_app)
    url = control.join_url(player, request.host_url)
    return {"player": player, "id": player_id(player), "active": url is not None, "url": url}


@bp.get("/api/access")
@host_only
def access_list() -> Any:
    """For the host: every player's join link (with the token) and the PIN page's address."""
    control = access_of(current_app)
    players = session_of(current_app).setup.players
    return jsonify(
        {
            "ok": True,
            "host_url": control.host_url(request.host_url),
            "public_url": control.public_url,
            "players": [_phone(p) for p in players],
        }
    )


def _no_body() -> None:
    """Bound whatever body a route that takes none was sent (a deep or huge one is a clear 4xx)."""

    read_json("{}", optional=True)


@bp.post("/api/players/<player>/token")
@host_only
def reissue(player: str) -> Any:
    """A new phone code for ``player`` (name or id): their old QR code and their phone stop working at once."""
    name = seated_player(player)
    _no_body()
    access_of(current_app).reissue(name)
    return jsonify({"ok": True, **_phone(name)})


@bp.delete("/api/players/<player>/token")
@host_only
def revoke(player: str) -> Any:
    """No phone acts for ``player`` (name or id) until a new code is issued."""
    name = seated_player(player)
    _no_body()
    access_of(current_app).revoke(name)
    return jsonify({"ok": True, **_phone(name)})


def _retry_after(response: Response, exc: AccessDeniedError) -> None:
    if exc.retry_after_s is not None:
        response.headers["Retry-After"] = str(max(1, math.ceil(exc.retry_after_s)))


# --- the access log ---------------------------------------------------------------------------

_SECRET_PARAM = re.compile(r"([?&;](?:t|token|pin)=)[^&;\s\"'#]*", re.IGNORECASE)


def redact(text: str) -> str:
    """``text`` with the values of ``t=``, ``token=`` and ``pin=`` query parameters blanked."""
    return _SECRET_PARAM.sub(r"\1[hidden]", text)


class RedactTokens(logging.Filter):
    """Blanks tokens in a log line (an access log writes each request line with its query string)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken record is the logging module's to report
            return True
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


ACCESS_LOGGERS = ("companion.access", "werkzeug")
"""The product's web server's access log (``companion.net.web_server``), and werkzeug's (tests)."""


def install_log_filter() -> None:
    """Put :class:`RedactTokens` on the web servers' access loggers (once per process)."""
    for name in ACCESS_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())


# --- wiring -----------------------------------------------------------------------------------


def init_access(app: Flask, *, public_url: str | None = None) -> AccessControl:
    """Attach the access control to ``app``: the PIN and tokens, the checks, ``/host`` and the token API."""
    session = session_of(app)
    control = AccessControl(session.setup.players, public_url=public_url)
    app.extensions[EXTENSION] = control

    def on_session(news: News) -> None:
        if not isinstance(news, Changed):
            return
        for event in news.events:
            if isinstance(event, TableReset):
                control.new_game(event.setup.players)

    session.add_listener(on_session)
    app.register_blueprint(bp)
    install_log_filter()

    @app.before_request
    def refuse_cross_site() -> None:
        if request.method not in SAFE_METHODS and is_cross_site():
            log.warning(
                "refused a %s %s from another site (Origin %s, Sec-Fetch-Site %s)",
                request.method,
                request.path,
                request.headers.get("Origin"),
                request.headers.get("Sec-Fetch-Site"),
            )
            raise AccessDeniedError(CROSS_SITE)

    @app.errorhandler(AccessDeniedError)
    def denied(exc: AccessDeniedError) -> Any:
        if request.path.startswith("/api/"):
            response = jsonify({"ok": False, "error": str(exc), "message": exc.text.to_json()})
            response.status_code = exc.status
        else:
            response = make_response(render_template("denied.html", message=exc.text), exc.status)
        _retry_after(response, exc)
        return response

    @app.errorhandler(UnknownPlayerError)
    def unknown_player(exc: UnknownPlayerError) -> Any:
        """No such player: JSON under /api/, else the page that lists the players."""
        if request.path.startswith("/api/"):
            return jsonify({"ok": False, "error": str(exc), "message": exc.text.to_json()}), 404
        players = session_of(current_app).setup.players
        return render_template("no_player.html", player=exc.player, players=players), 404

    @app.context_processor
    def access_context() -> dict[str, Any]:
        access = current_access()
        return {
            "access": access,
            "host_pin": control.pin if access.via == "loopback" else None,
            "host_url": control.host_url(request.host_url),
        }

    @app.after_request
    def protect(response: Response) -> Response:
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        if response.mimetype == "text/html" or request.path.startswith(("/api/access", "/api/host", "/qr/")):
            response.headers["Cache-Control"] = "no-store"
        return response

    return control

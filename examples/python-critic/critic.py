#!/usr/bin/env python3
"""A refinement-loop critic in Python 3 with no packages: the NATS protocol over a plain TCP
socket, JetStream through its request subjects, and the project's JSON Schemas for validation.

It flags TODO / FIXME / XXX / HACK comments that name no ticket (ABC-123, #123 or a URL).

    NATS_URL=nats://127.0.0.1:4222 RLOOP_NAMESPACE=rloop python3 examples/python-critic/critic.py

What it speaks (docs/adding-a-critic.md walks through it):
  * registers: CriticRegistered on <ns>.v1.critics.critic_registered.<critic>, then every heartbeat
    a CriticHeartbeat on ...critic_heartbeat.<critic> and its entry in the KV bucket
    <NS>_CRITIC_HEALTH (key <critic>.<instance>, value {"registration": ..., "heartbeat": ...});
  * takes RoundStarted from the durable consumer critic-<critic>-dispatch on <NS>_EVENTS (shared
    by its replicas) through $JS.API.CONSUMER.MSG.NEXT requests;
  * answers each round it is dispatched to with FindingsReported (with its coverage: files
    considered, analysed, skipped and why) or CriticFailed on
    <ns>.v1.events.<token>.<plan>.<critic>, event id d_<sha256(plan NUL run NUL report NUL round NUL critic)[:32]>,
    published with a Nats-Msg-Id header and acknowledged by a PubAck.
"""

import base64
import datetime
import hashlib
import json
import os
import queue
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

CRITIC_ID = "examples/todo-without-ticket"
EVIDENCE = "pattern"
DESCRIPTION = "TODO, FIXME, XXX and HACK comments that name no ticket (ABC-123, #123 or a URL)"
# Registered with triggers and not named by the catalogue: the panel adds it when a file matches.
TRIGGERS = ["**/*"]
PHASES = ["critical", "medium", "low", "final_sweep"]
TIMEOUT_MS = 30_000
VERSION = "1.0.0"
FINDING_TYPE = "todo/without-ticket"
MAX_FINDINGS = 500

MARKER = re.compile(r"(?:#|//|/\*|\*|<!--|--)\s*(TODO|FIXME|XXX|HACK)\b[:\s]?(.*)")
TICKET = re.compile(r"[A-Z][A-Z0-9]+-\d+|#\d+|https?://\S+")
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
TOKENS = {"FindingsReported": "findings_reported", "CriticFailed": "critic_failed"}


def log(message):
    print(f"{now_iso()} python-critic {message}", flush=True)


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def ulid():
    value = (int(time.time() * 1000) << 80) | int.from_bytes(os.urandom(10), "big")
    return "".join(CROCKFORD[(value >> (5 * i)) & 31] for i in reversed(range(26)))


def sha256_hex(*parts):
    return hashlib.sha256("\0".join(str(p) for p in parts).encode("utf-8")).hexdigest()


def subject_token(value):
    """The contracts' subjectToken: anything but [A-Za-z0-9_-] becomes '_'."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", value)


# ── JSON Schema (the subset the project's schemas use) ─────────────────────────────────────────

SCHEMAS_DIR = Path(os.environ.get("RLOOP_SCHEMAS_DIR") or Path(__file__).resolve().parent.parent.parent / "schemas")
_schema_cache = {}


def event_schema(token):
    if token not in _schema_cache:
        _schema_cache[token] = json.loads((SCHEMAS_DIR / "events" / f"{token}.schema.json").read_text("utf-8"))
    return _schema_cache[token]


def schema_errors(value, schema, root=None, path="$"):
    """Checks a value against a draft 2020-12 schema using only the keywords the schemas use."""
    root = root or schema
    errors = []
    if "$ref" in schema:
        name = schema["$ref"].split("/")[-1]
        errors += schema_errors(value, root["$defs"][name], root, path)
    if "anyOf" in schema and not any(not schema_errors(value, option, root, path) for option in schema["anyOf"]):
        errors.append(f"{path}: matches none of its alternatives")
    kind = schema.get("type")
    types = {
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list),
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
        "null": lambda v: v is None,
    }
    if kind is not None and not types[kind](value):
        return errors + [f"{path}: expected {kind}"]
    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: must be {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: must be one of {schema['enum']}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0) or len(value) > schema.get("maxLength", float("inf")):
            errors.append(f"{path}: length {len(value)} out of bounds")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append(f"{path}: does not match {schema['pattern']}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value < schema.get("minimum", float("-inf")) or value > schema.get("maximum", float("inf")):
            errors.append(f"{path}: {value} out of range")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", float("inf")):
            errors.append(f"{path}: {len(value)} items out of bounds")
        for i, item in enumerate(value):
            errors += schema_errors(item, schema.get("items", {}), root, f"{path}[{i}]")
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{path}.{key}: required")
        for key, item in value.items():
            if key in properties:
                errors += schema_errors(item, properties[key], root, f"{path}.{key}")
            elif schema.get("additionalProperties") is False:
                errors.append(f"{path}.{key}: not allowed")
    return errors


# ── Ed25519 signatures (RFC 8032), for nkey and creds authentication ───────────────────────────
# The standard library has no Ed25519; signing one server nonce per connection is all a critic
# needs, so a small implementation of the RFC's algorithm over Python integers is enough.

_P = 2**255 - 19
_L = 2**252 + 27742317777372353535851937790883648493
_D = -121665 * pow(121666, _P - 2, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)


def _recover_x(y, sign):
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P)
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P != 0:
        x = x * _SQRT_M1 % _P
    if x & 1 != sign:
        x = _P - x
    return x


_BY = 4 * pow(5, _P - 2, _P) % _P
_BX = _recover_x(_BY, 0)
_B = (_BX, _BY, 1, _BX * _BY % _P)  # extended coordinates (X, Y, Z, T)


def _add(p, q):
    a = (p[1] - p[0]) * (q[1] - q[0]) % _P
    b = (p[1] + p[0]) * (q[1] + q[0]) % _P
    c = 2 * p[3] * q[3] * _D % _P
    d = 2 * p[2] * q[2] % _P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % _P, g * h % _P, f * g % _P, e * h % _P)


def _multiply(scalar, point):
    result = (0, 1, 1, 0)
    while scalar > 0:
        if scalar & 1:
            result = _add(result, point)
        point = _add(point, point)
        scalar >>= 1
    return result


def _encode_point(point):
    z_inv = pow(point[2], _P - 2, _P)
    x, y = point[0] * z_inv % _P, point[1] * z_inv % _P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def ed25519_sign(seed, message):
    """(signature, public key) of `message` with the 32-byte private seed."""
    digest = hashlib.sha512(seed).digest()
    scalar = int.from_bytes(digest[:32], "little") & ((1 << 254) - 8) | (1 << 254)
    public = _encode_point(_multiply(scalar, _B))
    r = int.from_bytes(hashlib.sha512(digest[32:] + message).digest(), "little") % _L
    encoded_r = _encode_point(_multiply(r, _B))
    k = int.from_bytes(hashlib.sha512(encoded_r + public + message).digest(), "little") % _L
    return encoded_r + ((r + k * scalar) % _L).to_bytes(32, "little"), public


# ── nkeys: base32 keys with a type prefix and a CRC16 ──────────────────────────────────────────

_NKEY_SEED = 18 << 3  # 'S'
_NKEY_USER = 20 << 3  # 'U'


def _crc16(data):
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def _b32decode(text):
    return base64.b32decode(text + "=" * (-len(text) % 8))


def nkey_user_seed(text):
    """The 32-byte private seed of a user nkey seed (`SU…`), its CRC and type checked."""
    try:
        raw = _b32decode(text.strip())
    except ValueError as error:
        raise NatsError(f"not an nkey seed: {error}") from None
    if len(raw) != 36 or int.from_bytes(raw[-2:], "little") != _crc16(raw[:-2]):
        raise NatsError("not an nkey seed (bad length or checksum)")
    kind = ((raw[0] & 7) << 5) | ((raw[1] & 0xF8) >> 3)
    if raw[0] & 0xF8 != _NKEY_SEED or kind != _NKEY_USER:
        raise NatsError("not a user nkey seed (SU…)")
    return raw[2:34]


def nkey_public(public):
    raw = bytes([_NKEY_USER]) + public
    return base64.b32encode(raw + _crc16(raw).to_bytes(2, "little")).decode().rstrip("=")


# ── NATS credentials, from the same variables the TypeScript services read ─────────────────────


class Credentials:
    """User/password, a token, an nkey seed or a creds file (JWT + seed), and TLS settings.

    Variables: NATS_URL (user:password@ or token@ accepted; tls:// requires TLS), NATS_USER +
    NATS_PASSWORD or NATS_PASSWORD_FILE, NATS_TOKEN or NATS_TOKEN_FILE, NATS_NKEY (a seed file),
    NATS_CREDS (a creds file), NATS_CA, NATS_CERT + NATS_KEY, NATS_INBOX_PREFIX. A secret is never
    printed: `where` is the URL without its user info.
    """

    def __init__(self, env):
        # Several comma-separated URLs are the nodes of a cluster: the critic connects to the first that answers.
        urls = [u.strip() for u in (env.get("NATS_URL") or "nats://127.0.0.1:4222").split(",") if u.strip()]
        if not urls:
            raise NatsError("NATS_URL names no server")
        parsed_urls = [urlparse(u if "://" in u else f"nats://{u}") for u in urls]
        self.servers = [(p.hostname or "127.0.0.1", p.port or 4222, f"{p.scheme}://{p.hostname or '127.0.0.1'}:{p.port or 4222}") for p in parsed_urls]
        self.host, self.port, self.where = self.servers[0]
        with_user = [p for p in parsed_urls if p.username is not None]
        parsed = with_user[0] if with_user else parsed_urls[0]
        if any((p.username, p.password) != (parsed.username, parsed.password) for p in with_user):
            raise NatsError("NATS_URL: its URLs carry different credentials")
        self.tls = any(p.scheme == "tls" for p in parsed_urls) or bool(env.get("NATS_CA") or env.get("NATS_CERT"))
        self.ca, self.cert, self.key = env.get("NATS_CA") or None, env.get("NATS_CERT") or None, env.get("NATS_KEY") or None
        if bool(self.cert) != bool(self.key):
            raise NatsError("a client certificate needs both NATS_CERT and NATS_KEY")
        self.inbox_prefix = env.get("NATS_INBOX_PREFIX") or "_INBOX"
        kinds = []
        if parsed.username is not None:
            if parsed.password is not None:
                kinds.append(("user", unquote(parsed.username), unquote(parsed.password)))
            else:
                kinds.append(("token", unquote(parsed.username)))
        password = self._secret(env, "NATS_PASSWORD")
        if env.get("NATS_USER"):
            if password is None:
                raise NatsError("NATS_USER needs NATS_PASSWORD or NATS_PASSWORD_FILE")
            kinds.append(("user", env["NATS_USER"], password))
        token = self._secret(env, "NATS_TOKEN")
        if token is not None:
            kinds.append(("token", token))
        if env.get("NATS_NKEY"):
            kinds.append(("nkey", nkey_user_seed(Path(env["NATS_NKEY"]).read_text("utf-8"))))
        if env.get("NATS_CREDS"):
            blocks = re.findall(r"-{3,}[^\n]*-{3,}\s*\n\s*(\S+)\s*\n\s*-{3,}[^\n]*-{3,}", Path(env["NATS_CREDS"]).read_text("utf-8"))
            if len(blocks) < 2:
                raise NatsError(f"{env['NATS_CREDS']} is not a creds file (a user JWT and an nkey seed)")
            kinds.append(("jwt", blocks[0], nkey_user_seed(blocks[1])))
        if len(kinds) > 1:
            raise NatsError("give one kind of NATS credentials (URL user info, NATS_USER, NATS_TOKEN, NATS_NKEY or NATS_CREDS)")
        self.kind = kinds[0] if kinds else None

    @staticmethod
    def _secret(env, name):
        if env.get(name) and env.get(f"{name}_FILE"):
            raise NatsError(f"give {name} or {name}_FILE, not both")
        if env.get(f"{name}_FILE"):
            return Path(env[f"{name}_FILE"]).read_text("utf-8").rstrip("\r\n")
        return env.get(name) or None

    def connect_fields(self, nonce):
        """What CONNECT carries to authenticate, signing the server's nonce when a key is used."""
        if self.kind is None:
            return {}
        if self.kind[0] == "user":
            return {"user": self.kind[1], "pass": self.kind[2]}
        if self.kind[0] == "token":
            return {"auth_token": self.kind[1]}
        if nonce is None:
            raise NatsError(f"NATS at {self.where} sent no nonce to sign: it does not expect nkey or JWT authentication")
        signature, public = ed25519_sign(self.kind[-1], nonce.encode())
        sig = base64.urlsafe_b64encode(signature).decode().rstrip("=")
        if self.kind[0] == "nkey":
            return {"nkey": nkey_public(public), "sig": sig}
        return {"jwt": self.kind[1], "nkey": nkey_public(public), "sig": sig}


# ── NATS over a socket ─────────────────────────────────────────────────────────────────────────


class NatsError(Exception):
    pass


class Msg:
    def __init__(self, subject, reply, data, headers=None, status=None):
        self.subject, self.reply, self.data, self.headers, self.status = subject, reply, data, headers or {}, status


class Nats:
    """CONNECT, SUB/UNSUB, PUB/HPUB, MSG/HMSG, PING/PONG, and request/reply through inboxes."""

    def __init__(self, credentials, name):
        self.sock = self._dial(credentials)
        self.reader = self.sock.makefile("rb")
        self.write_lock = threading.Lock()
        self.counter_lock = threading.Lock()
        self.subs = {}
        self.next_sid = 1
        # Replies arrive under the inbox prefix, so a NATS user limited to its own inboxes gets them.
        self.inbox = f"{credentials.inbox_prefix}.{ulid()}"
        self.counter = 0
        info_line = self.reader.readline()
        info = json.loads(info_line[5:]) if info_line.startswith(b"INFO ") else {}
        if not info.get("headers"):
            raise NatsError(f"{credentials.where} is not a NATS server with headers support")
        if credentials.tls or info.get("tls_required"):
            if not (info.get("tls_required") or info.get("tls_available")):
                raise NatsError(f"{credentials.where} does not offer TLS")
            context = ssl.create_default_context(cafile=credentials.ca)
            if credentials.cert:
                context.load_cert_chain(credentials.cert, credentials.key)
            self.sock = context.wrap_socket(self.sock, server_hostname=credentials.host)
            self.reader = self.sock.makefile("rb")
        connect = {"verbose": False, "pedantic": False, "name": name, "lang": "python", "version": VERSION, "protocol": 1, "headers": True, "no_responders": True}
        connect.update(credentials.connect_fields(info.get("nonce")))
        self._send(f"CONNECT {json.dumps(connect)}\r\nPING\r\n".encode())
        line = self.reader.readline()
        if line.startswith(b"-ERR"):
            raise NatsError(f"NATS at {credentials.where} refused the connection: {line.decode().strip()}")
        self.sock.settimeout(None)
        self.closed = threading.Event()
        threading.Thread(target=self._read_loop, daemon=True).start()

    @staticmethod
    def _dial(credentials):
        """The first server of NATS_URL that accepts a connection (the others of a cluster stand in for a dead one)."""
        failures = []
        for host, port, where in credentials.servers:
            try:
                sock = socket.create_connection((host, port), timeout=5)
            except OSError as error:
                failures.append(f"{where}: {error}")
                continue
            credentials.host, credentials.port, credentials.where = host, port, where
            return sock
        raise NatsError("no server of NATS_URL answers (" + "; ".join(failures) + ")")

    def _send(self, data):
        with self.write_lock:
            self.sock.sendall(data)

    def subscribe(self, subject, callback):
        with self.counter_lock:
            sid = str(self.next_sid)
            self.next_sid += 1
        self.subs[sid] = callback
        self._send(f"SUB {subject} {sid}\r\n".encode())
        return sid

    def publish(self, subject, data=b"", headers=None, reply=None):
        target = f"{subject} {reply}" if reply else subject
        if headers:
            block = ("NATS/1.0\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n").encode()
            self._send(f"HPUB {target} {len(block)} {len(block) + len(data)}\r\n".encode() + block + data + b"\r\n")
        else:
            self._send(f"PUB {target} {len(data)}\r\n".encode() + data + b"\r\n")

    def request(self, subject, data=b"", headers=None, timeout=5.0):
        # One inbox subscription per request: JetStream delivers a pulled message with its stream
        # subject (not the inbox), so replies are told apart by subscription id, as NATS clients do.
        with self.counter_lock:
            self.counter += 1
            inbox = f"{self.inbox}.{self.counter}"
        box = queue.Queue(maxsize=1)
        sid = self.subscribe(inbox, box.put)
        self._send(f"UNSUB {sid} 1\r\n".encode())
        try:
            self.publish(subject, data, headers, reply=inbox)
            try:
                msg = box.get(timeout=timeout)
            except queue.Empty:
                self._send(f"UNSUB {sid}\r\n".encode())
                raise NatsError(f"no reply on {subject} within {timeout} s") from None
        finally:
            self.subs.pop(sid, None)
        if msg.status == 503:
            raise NatsError(f"no responders on {subject}")
        return msg

    def _read_loop(self):
        try:
            while True:
                line = self.reader.readline()
                if not line:
                    break
                if line.startswith(b"PING"):
                    self._send(b"PONG\r\n")
                elif line.startswith(b"MSG ") or line.startswith(b"HMSG "):
                    self._dispatch(line)
                elif line.startswith(b"-ERR"):
                    log(f"server error: {line.decode().strip()}")
        except OSError as error:
            if not self.closed.is_set():
                log(f"connection lost: {error}")
        finally:
            self.closed.set()

    def _dispatch(self, line):
        parts = line.decode().split()
        if parts[0] == "MSG":
            subject, sid, reply, size = parts[1], parts[2], (parts[3] if len(parts) == 5 else None), int(parts[-1])
            payload = self.reader.read(size + 2)[:-2]
            headers, status = {}, None
        else:
            subject, sid, reply = parts[1], parts[2], (parts[3] if len(parts) == 6 else None)
            header_size, total = int(parts[-2]), int(parts[-1])
            raw = self.reader.read(total + 2)[:-2]
            head, payload = raw[:header_size].decode(), raw[header_size:]
            lines = head.split("\r\n")
            status_line = lines[0].split(" ", 2)
            status = int(status_line[1]) if len(status_line) > 1 and status_line[1].isdigit() else None
            headers = dict(l.split(": ", 1) for l in lines[1:] if ": " in l)
        callback = self.subs.get(sid)
        if callback is not None:
            callback(Msg(subject, reply, payload, headers, status))

    def close(self):
        self.closed.set()
        try:
            self._send(b"PING\r\n")
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class JetStream:
    def __init__(self, nc):
        self.nc = nc

    def api(self, operation, body=None, timeout=5.0):
        msg = self.nc.request(f"$JS.API.{operation}", json.dumps(body or {}).encode(), timeout=timeout)
        reply = json.loads(msg.data)
        if "error" in reply:
            raise NatsError(f"{operation}: {reply['error'].get('description')} (code {reply['error'].get('err_code')})")
        return reply

    def publish(self, subject, payload, msg_id=None, headers=None):
        """Publishes into a stream and waits for the PubAck (duplicate=true when the id was seen)."""
        headers = dict(headers or {}, **({"Nats-Msg-Id": msg_id} if msg_id else {}))
        msg = self.nc.request(subject, payload, headers=headers or None)
        ack = json.loads(msg.data)
        if "error" in ack:
            raise NatsError(f"publish to {subject} refused: {ack['error'].get('description')}")
        return ack


# ── the critic ─────────────────────────────────────────────────────────────────────────────────


# Files larger than this are not read (reported as skipped, too_large); RLOOP_MAX_FILE_BYTES sets
# it, and then such files no longer keep a round from counting as clean.
MAX_FILE_BYTES = int(os.environ.get("RLOOP_MAX_FILE_BYTES") or 4 * 1024 * 1024)
BOUND_CONFIGURED = bool(os.environ.get("RLOOP_MAX_FILE_BYTES"))
# Skip reasons that leave a file unreviewed come first, so the capped list never hides one.
SKIP_ORDER = ["not_read", "unreadable", "parse_error", "binary", "too_large", "generated", "outside_checkout", "missing"]
MAX_LISTED_SKIPS = 100


def git_blob(repo, commit, file, depth=0):
    """(text, None) of a file at the commit, or (None, (reason, detail)) when it cannot be reviewed.

    Read from git's objects, never from a checkout: a symbolic link is followed only to a path
    inside the commit's tree, so nothing outside the repository is ever read."""
    listed = subprocess.run(["git", "-C", repo, "ls-tree", "-l", "-z", commit, "--", file], capture_output=True)
    if listed.returncode != 0:
        raise RuntimeError(f"cannot list {file} at {commit} in {repo}: {listed.stderr.decode(errors='replace').strip()}")
    entry = listed.stdout.split(b"\0")[0]
    if not entry:
        return None, ("missing", "not in the commit")
    mode, kind, _sha, size = entry.partition(b"\t")[0].decode().split()
    if kind != "blob":
        return None, ("missing", "not a regular file (a directory or a submodule)")
    if mode != "120000" and int(size) > MAX_FILE_BYTES:
        return None, ("too_large", f"{size} bytes, over the {MAX_FILE_BYTES}-byte bound")
    shown = subprocess.run(["git", "-C", repo, "cat-file", "blob", f"{commit}:{file}"], capture_output=True)
    if shown.returncode != 0:
        raise RuntimeError(f"cannot read {file} at {commit} from {repo}: {shown.stderr.decode(errors='replace').strip()}")
    if mode == "120000":
        target = os.path.normpath(os.path.join(os.path.dirname(file), shown.stdout.decode(errors="replace")))
        if target.startswith("/") or target == ".." or target.startswith("../") or depth > 8:
            return None, ("outside_checkout", "a symbolic link to a file outside the checkout, never read")
        return git_blob(repo, commit, target, depth + 1)
    if b"\0" in shown.stdout:
        return None, ("binary", "holds NUL bytes")
    return shown.stdout.decode("utf-8", errors="replace"), None


def scan(repo, commit, files, deadline):
    """Drafts of findings, read straight from git at the pinned commit (no checkout needed), and
    what was covered: every text file under review is of its kind (TODOs hide anywhere)."""
    findings, skipped, analysed, unsupported = {}, [], 0, 0
    for file in files:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{CRITIC_ID} did not finish within {TIMEOUT_MS} ms")
        text, skip = git_blob(repo, commit, file)
        if skip is not None and skip[0] == "binary":
            unsupported += 1  # comments live in text: binary content is not of its kind
            continue
        if skip is not None:
            skipped.append({"file": file, "reason": skip[0], "detail": skip[1]})
            continue
        analysed += 1
        for number, line in enumerate(text.split("\n"), start=1):
            marker = MARKER.search(line)
            if marker is None or TICKET.search(marker.group(2)):
                continue
            fingerprint = sha256_hex(CRITIC_ID, file, f"{number}-{number}", FINDING_TYPE)[:12]
            normalised = re.sub(r"\s+", " ", line).strip()
            findings[fingerprint] = {
                "id": f"f_{fingerprint}",
                "fingerprint": fingerprint,
                "location_hash": sha256_hex(file, FINDING_TYPE, normalised)[:16],
                "severity": "low",
                "score": 2,
                "category": "maintainability",
                "finding_type": FINDING_TYPE,
                "file": file,
                "line_range": {"start": number, "end": number},
                "title": f"{marker.group(1)} without a ticket",
                "current_behaviour": f"{file}:{number} leaves work for later with no ticket to track it: {line.strip()[:300]}",
                "expected_behaviour": "every TODO/FIXME names the ticket that tracks it (ABC-123, #123 or a URL), or the work is done",
                "observable_test_conditions": [f"{file} line {number} names a ticket or holds no {marker.group(1)}"],
                "forbidden_in_test": [],
                "raised_by": CRITIC_ID,
                "related_findings": [],
                "fixable": False,
                "related_locations": [],
            }
    skipped.sort(key=lambda s: (SKIP_ORDER.index(s["reason"]), s["file"]))
    coverage = {
        "considered": analysed + unsupported + len(skipped), "analysed": analysed, "unsupported": unsupported,
        "skipped": skipped[:MAX_LISTED_SKIPS], "skipped_total": len(skipped),
        "max_file_bytes": MAX_FILE_BYTES, "max_file_bytes_configured": BOUND_CONFIGURED,
    }
    return list(findings.values()), coverage


class Critic:
    def __init__(self):
        self.namespace = os.environ.get("RLOOP_NAMESPACE") or "rloop"
        self.heartbeat_ms = int(os.environ.get("RLOOP_CRITIC_HEARTBEAT_MS") or 5000)
        self.instance = os.environ.get("RLOOP_CRITIC_INSTANCE_ID") or f"python@{socket.gethostname()}:{os.getpid()}"
        self.producer = f"critic:{CRITIC_ID}@{self.instance}"[:200]
        upper = self.namespace.upper()
        self.root = f"{self.namespace}.v1"
        self.events_stream, self.bucket = f"{upper}_EVENTS", f"{upper}_CRITIC_HEALTH"
        self.durable = f"critic-{subject_token(CRITIC_ID)}-dispatch"
        self.key = f"{subject_token(CRITIC_ID)}.{subject_token(self.instance)}"
        self.stopping = threading.Event()
        self.in_flight = 0
        self.started = time.monotonic()
        try:
            credentials = Credentials(os.environ)
        except (OSError, NatsError) as error:
            sys.exit(f"{CRITIC_ID}: bad NATS settings: {error}")
        try:
            self.nc = Nats(credentials, f"critic:{CRITIC_ID}")
        except (OSError, NatsError) as error:
            sys.exit(f"{CRITIC_ID}: cannot connect to NATS at {credentials.where}: {error}")
        self.js = JetStream(self.nc)

    def event(self, event_type, token, data, event_id=None, correlation_id=None, causation_id=None, plan="_critics"):
        event_id = event_id or ulid()
        event = {
            "event_id": event_id,
            "type": event_type,
            "schema_version": 1,
            "plan": plan,
            "correlation_id": correlation_id or event_id,
            "causation_id": causation_id,
            "occurred_at": now_iso(),
            "producer": self.producer,
            "data": data,
        }
        errors = schema_errors(event, event_schema(token))
        if errors:
            raise ValueError(f"{event_type} does not match schemas/events/{token}.schema.json: {'; '.join(errors[:5])}")
        return event

    def publish(self, event, channel, token, key, critic=None):
        # A critic's answers end with the critic (…findings_reported.<plan>.<critic>): NATS
        # permissions bind a critic's user to its own reports, and receivers check the envelope.
        payload = json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode()
        subject = f"{self.root}.{channel}.{token}.{subject_token(key)}" + (f".{subject_token(critic)}" if critic else "")
        return self.js.publish(subject, payload, msg_id=event["event_id"])

    # registry

    def register(self):
        try:
            self.js.api(f"STREAM.INFO.{self.events_stream}")
        except NatsError as error:
            sys.exit(f"{CRITIC_ID}: the fleet's streams are not there in namespace {self.namespace} ({error}); start the fleet first")
        max_age_ns = self.heartbeat_ms * 3 * 1_000_000
        try:
            max_age_ns = self.js.api(f"STREAM.INFO.KV_{self.bucket}")["config"]["max_age"]
        except NatsError:
            self.create_bucket(max_age_ns)
        # Never heartbeat so slowly that the entry expires between two heartbeats.
        self.heartbeat_ms = max(100, min(self.heartbeat_ms, max_age_ns // 3_000_000))
        self.register_and_beat()

    def create_bucket(self, max_age_ns):
        try:
            self.js.api(f"STREAM.CREATE.KV_{self.bucket}", {
                "name": f"KV_{self.bucket}", "subjects": [f"$KV.{self.bucket}.>"], "retention": "limits", "storage": "memory",
                "discard": "new", "max_msgs_per_subject": 1, "max_age": max_age_ns, "duplicate_window": min(max_age_ns, 120_000_000_000),
                "allow_rollup_hdrs": True, "deny_delete": True, "allow_direct": True, "num_replicas": int(os.environ.get("RLOOP_STREAM_REPLICAS") or 1),
                "max_msgs": -1, "max_bytes": -1, "max_msg_size": -1, "max_consumers": -1,
            })
        except NatsError as error:
            # A critic's NATS user may not create streams: the fleet (the panel, the critic-runner) makes the bucket.
            sys.exit(f"{CRITIC_ID}: the critic registry bucket KV_{self.bucket} is not there and could not be created ({error}); start the fleet first")

    def register_and_beat(self):
        self.registration = self.event("CriticRegistered", "critic_registered", {
            "critic_id": CRITIC_ID, "instance_id": self.instance, "evidence": EVIDENCE, "description": DESCRIPTION,
            "triggers": TRIGGERS, "phases": PHASES, "timeout_ms": TIMEOUT_MS, "heartbeat_interval_ms": self.heartbeat_ms, "version": VERSION,
        })
        self.publish(self.registration, "critics", "critic_registered", CRITIC_ID)
        self.beat()
        threading.Thread(target=self.heartbeat_loop, daemon=True).start()
        log(f"{CRITIC_ID}: registered as {self.instance} (heartbeat every {self.heartbeat_ms} ms)")

    def beat(self, status="healthy"):
        heartbeat = self.event("CriticHeartbeat", "critic_heartbeat", {
            "critic_id": CRITIC_ID, "instance_id": self.instance, "status": status,
            "in_flight": self.in_flight, "uptime_ms": int((time.monotonic() - self.started) * 1000),
        }, correlation_id=self.registration["event_id"])
        self.publish(heartbeat, "critics", "critic_heartbeat", CRITIC_ID)
        subject = f"$KV.{self.bucket}.{self.key}"
        if status == "draining":
            self.js.publish(subject, b"", headers={"KV-Operation": "DEL"})
        else:
            entry = {"registration": self.registration, "heartbeat": heartbeat}
            self.js.publish(subject, json.dumps(entry, separators=(",", ":")).encode())

    def heartbeat_loop(self):
        while not self.stopping.wait(self.heartbeat_ms / 1000):
            try:
                self.beat()
            except (OSError, NatsError) as error:
                log(f"heartbeat failed: {error}")

    # dispatch

    def ensure_consumer(self):
        # The create subject names the consumer and its filter (NATS >= 2.9), so a permission can bind
        # the critic's user to its own durable reading RoundStarted, and nothing else.
        filter_subject = f"{self.root}.events.round_started.*"
        self.js.api(f"CONSUMER.CREATE.{self.events_stream}.{self.durable}.{filter_subject}", {
            "stream_name": self.events_stream,
            "config": {
                "name": self.durable, "durable_name": self.durable, "deliver_policy": "all", "ack_policy": "explicit", "ack_wait": 30_000_000_000,
                "max_deliver": -1, "filter_subject": filter_subject, "max_ack_pending": 1000, "replay_policy": "instant",
            },
        })

    def run(self):
        self.ensure_consumer()
        self.register()
        while not self.stopping.is_set() and not self.nc.closed.is_set():
            try:
                msg = self.nc.request(f"$JS.API.CONSUMER.MSG.NEXT.{self.events_stream}.{self.durable}",
                                      json.dumps({"batch": 1, "expires": 2_000_000_000}).encode(), timeout=3.0)
            except NatsError:
                continue
            if msg.status is not None:
                continue  # 404 no messages / 408 request expired: pull again
            self.handle(msg)
        self.withdraw()

    def handle(self, msg):
        tokens = msg.reply.split(".")
        deliveries = int(tokens[4] if len(tokens) == 9 else tokens[6])
        try:
            round_started = json.loads(msg.data)
        except ValueError:
            self.nc.publish(msg.reply, b"+TERM")
            return
        errors = schema_errors(round_started, event_schema("round_started"))
        if errors:
            log(f"ignoring a RoundStarted that breaks its schema: {'; '.join(errors[:3])}")
            self.nc.publish(msg.reply, b"+ACK")
            return
        data = round_started["data"]
        dispatched = next((c for c in data["critics"] if c["critic_id"] == CRITIC_ID), None)
        deadline = datetime.datetime.fromisoformat(data["deadline_at"].replace("Z", "+00:00"))
        if dispatched is None or deadline <= datetime.datetime.now(datetime.timezone.utc):
            # Not on this round's panel, or its letter is written without us: nothing to answer.
            self.nc.publish(msg.reply, b"+ACK")
            return
        plan, run_id, number = round_started["plan"], round_started["correlation_id"], data["round"]
        answer_id = "d_" + sha256_hex(plan, run_id, "report", number, CRITIC_ID)[:32]
        if deliveries > 1 and self.already_answered(answer_id):
            self.nc.publish(msg.reply, b"+ACK")
            return
        self.in_flight += 1
        started = time.monotonic()
        working = threading.Event()
        threading.Thread(target=self.keep_working, args=(msg.reply, working), daemon=True).start()
        try:
            findings, coverage = scan(data["repo_path"], data["commit"], data["files"], started + dispatched["timeout_ms"] / 1000)
            if dispatched["core"] and coverage["considered"] > 0 and coverage["analysed"] == 0:
                # A core critic that saw none of the plan's files has nothing to say "0 findings" about.
                reasons = "; ".join(f"{s['file']} ({s['reason']})" for s in coverage["skipped"][:5])
                answer_type, answer = "CriticFailed", {
                    **self.failure(number, dispatched, "no_files_analysed", f"analysed none of the {coverage['considered']} file(s) under review: {reasons}", started),
                    "coverage": coverage,
                }
            else:
                answer_type, answer = "FindingsReported", {
                    "round": number, "critic_id": CRITIC_ID, "commit": data["commit"], "findings": findings[:MAX_FINDINGS],
                    "truncated": len(findings) > MAX_FINDINGS, "duration_ms": int((time.monotonic() - started) * 1000),
                    "coverage": coverage,
                }
        except TimeoutError as error:
            answer_type, answer = "CriticFailed", self.failure(number, dispatched, "timed_out", str(error), started)
        except (OSError, RuntimeError) as error:
            answer_type, answer = "CriticFailed", self.failure(number, dispatched, "not_runnable", str(error), started)
        finally:
            working.set()
            self.in_flight -= 1
        envelope = {"event_id": answer_id, "correlation_id": run_id, "causation_id": round_started["event_id"], "plan": plan}
        try:
            event = self.event(answer_type, TOKENS[answer_type], answer, **envelope)
        except ValueError as error:
            # Our own output breaks the contract: say so rather than publish it (or nothing).
            event = self.event("CriticFailed", TOKENS["CriticFailed"], self.failure(number, dispatched, "invalid_output", str(error), started), **envelope)
        self.publish(event, "events", TOKENS[event["type"]], plan, critic=CRITIC_ID)
        self.nc.publish(msg.reply, b"+ACK")
        log(f"{plan} round {number}: {event['type']} ({len(event['data'].get('findings', []))} finding(s))")

    def keep_working(self, reply, done):
        """Tells the server the round is still being reviewed, so it is not redelivered meanwhile."""
        while not done.wait(10):
            self.nc.publish(reply, b"+WPI")

    def failure(self, number, dispatched, reason, message, started):
        return {
            "round": number, "critic_id": CRITIC_ID, "core": dispatched["core"], "reason": reason,
            "message": message[:4000], "duration_ms": int((time.monotonic() - started) * 1000),
        }

    def already_answered(self, answer_id):
        try:
            reply = json.loads(self.nc.request(f"{self.root}.journal.event", json.dumps({"event_id": answer_id}).encode()).data)
            return reply.get("found") is True
        except (NatsError, ValueError) as error:
            log(f"could not ask the journal about {answer_id} ({error}); answering again (the id is deterministic)")
            return False

    def withdraw(self):
        try:
            self.beat("draining")
        except (OSError, NatsError) as error:
            log(f"could not withdraw from the registry ({error}); the entry expires by itself")
        self.nc.close()
        log(f"{CRITIC_ID}: stopped")


def main():
    critic = Critic()
    stop = lambda *_: critic.stopping.set()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    critic.run()


if __name__ == "__main__":
    main()

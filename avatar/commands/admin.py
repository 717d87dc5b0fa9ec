"""`avatar admin set-pin | status`: the kiosk's admin PIN (no PIN is shipped; docs/KIOSK.md).

`set-pin` asks for the PIN twice (or reads one line from stdin when it is not a terminal, for
install scripts) and stores its salted hash in `kiosk.admin_pin_file`, readable by this user only;
`--print` prints the hash for `kiosk.admin_pin_hash` in a settings file instead of writing it.
`status` says whether a PIN is set and where it comes from.
"""
from __future__ import annotations

import sys
from pathlib import Path

from avatar.errors import ConfigError


def add_arguments(p) -> None:
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    s = sub.add_parser("set-pin", help="set the admin PIN (stored as a salted hash)")
    s.add_argument("--pin-file", help="where to store the hash (default: the setting kiosk.admin_pin_file)")
    s.add_argument("--print", dest="print_hash", action="store_true",
                   help="print the line for kiosk.admin_pin_hash instead of writing a file")
    sub.add_parser("status", help="whether an admin PIN is set, and where")


def run(args, cfg) -> int:
    from avatar.ui.pin import check_new_pin, hash_pin, pin_file, stored_pin, write_pin_file

    if args.action == "status":
        stored = stored_pin(cfg)
        if stored.is_set:
            print(f"admin PIN: set ({stored.where})")
            return 0
        print(f"admin PIN: not set (the admin panel refuses every entry); run `avatar admin set-pin` "
              f"(it writes {pin_file(cfg)})")
        return 1
    pin = _read_pin()
    if args.print_hash:
        print(f'admin_pin_hash = "{hash_pin(check_new_pin(pin))}"  # under [kiosk]')
        return 0
    path = Path(args.pin_file) if args.pin_file else pin_file(cfg)
    write_pin_file(path, pin)
    print(f"admin PIN set: its hash is in {path}")
    if cfg.kiosk.admin_pin_hash.strip():
        print("note: the setting kiosk.admin_pin_hash is also set and wins over the file; remove it to use this PIN",
              file=sys.stderr)
    return 0


def _read_pin() -> str:
    from avatar.ui.pin import check_new_pin

    if not sys.stdin.isatty():
        line = sys.stdin.readline()
        if not line.strip():
            raise ConfigError("no PIN on stdin", hint="pipe one line with the PIN, or run this in a terminal")
        return check_new_pin(line)
    import getpass

    first = check_new_pin(getpass.getpass("new admin PIN (4-12 digits): "))
    if getpass.getpass("the same PIN again: ").strip() != first:
        raise ConfigError("the two PINs differ", hint="run `avatar admin set-pin` again")
    return first

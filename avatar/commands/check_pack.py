"""`avatar check-pack`: what in a knowledge pack will make the kiosk answer wrongly or less often."""
from __future__ import annotations

import json


def add_arguments(parser) -> None:
    parser.add_argument("--knowledge", metavar="DIR", help="the venue's knowledge pack (default: general.knowledge)")
    parser.add_argument("--json", action="store_true", help="one JSON object: the findings")


def run(args, cfg) -> int:
    from avatar.answer import load_knowledge
    from avatar.answer.pack_check import check_pack, format_findings

    pack = load_knowledge(cfg, args.knowledge)  # a pack that does not load: its error names file and field
    findings = check_pack(pack)
    if args.json:
        print(json.dumps({"pack": pack.name, "facts": len(pack.entries),
                          "findings": [f.to_dict() for f in findings]}, ensure_ascii=False, indent=1))
    else:
        print(format_findings(findings, pack))
    return 1 if any(f.level == "problem" for f in findings) else 0

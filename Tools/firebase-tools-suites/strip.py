"""TypeScript -> CommonJS JavaScript for the test files: type syntax removed
with tree-sitter, imports turned into require() of local shims."""
import re
import sys

import tree_sitter
import tree_sitter_typescript as tst

LANG = tree_sitter.Language(tst.language_typescript())
PARSER = tree_sitter.Parser(LANG)

REMOVE = {"type_annotation", "type_parameters", "interface_declaration", "type_alias_declaration",
          "accessibility_modifier", "abstract_class_declaration", "declare_statement", "ambient_declaration"}


def strip(source: bytes) -> str:
    tree = PARSER.parse(source)
    edits = []  # (start, end, replacement)

    def visit(node):
        t = node.type
        if t in REMOVE:
            edits.append((node.start_byte, node.end_byte, b""))
            return
        if t == "type_arguments":
            edits.append((node.start_byte, node.end_byte, b""))
            return
        if t in ("as_expression", "satisfies_expression"):
            # keep the expression, drop " as Type"
            expr = node.children[0]
            edits.append((expr.end_byte, node.end_byte, b""))
            visit(expr)
            return
        if t == "non_null_expression":
            edits.append((node.end_byte - 1, node.end_byte, b""))
        if t == "optional_parameter":
            for child in node.children:
                if child.type == "?":
                    edits.append((child.start_byte, child.end_byte, b""))
        if t in ("public_field_definition",):
            for child in node.children:
                if child.type in ("?", "!", "readonly"):
                    edits.append((child.start_byte, child.end_byte, b""))
        if t == "export_statement":
            # `export type X = ...` / `export interface` : drop whole
            decl = node.child_by_field_name("declaration")
            if decl is not None and decl.type in ("interface_declaration", "type_alias_declaration"):
                edits.append((node.start_byte, node.end_byte, b""))
                return
        if t == "import_statement":
            edits.append((node.start_byte, node.end_byte, convert_import(node, source)))
            return
        for child in node.children:
            visit(child)

    visit(tree.root_node)
    edits.sort(key=lambda e: (e[0], -e[1]))
    out = bytearray()
    pos = 0
    for start, end, replacement in edits:
        if start < pos:
            continue
        out += source[pos:start] + replacement
        pos = end
    out += source[pos:]
    text = out.decode()
    # `export function f` / `export const` / `export async function` -> plain + exports
    names = re.findall(r"^export (?:async )?(?:function\*? |const |let |class )(\w+)", text, flags=re.M)
    for group in re.findall(r"^export \{([^}]*)\};?", text, flags=re.M):
        names += [n.strip() for n in group.split(",") if n.strip()]
    text = re.sub(r"^export \{[^}]*\};?", "", text, flags=re.M)
    text = re.sub(r"^export (default )?", "", text, flags=re.M)
    if names:
        text += "\nmodule.exports = { ...module.exports, " + ", ".join(names) + " };\n"
    return text


def convert_import(node, source: bytes) -> bytes:
    text = source[node.start_byte:node.end_byte].decode()
    if re.match(r"import\s+type\b", text):
        return b""
    module = re.search(r"""from\s+["']([^"']+)["']""", text)
    if not module:
        return b""
    name = module.group(1)
    clause = text[len("import"):module.start()].strip()
    req = f'require("./shim-module")("{name}")'
    parts = []
    default = re.match(r"^(\w+)\s*(,|$)", clause)
    if default:
        parts.append(f"const {default.group(1)} = {req}.default;")
    star = re.search(r"\*\s+as\s+(\w+)", clause)
    if star:
        parts.append(f"const {star.group(1)} = {req};")
    braces = re.search(r"\{([^}]*)\}", clause, flags=re.S)
    if braces:
        items = []
        for item in braces.group(1).split(","):
            item = item.strip()
            if not item or item.startswith("type "):
                continue
            m = re.match(r"(\w+)\s+as\s+(\w+)", item)
            items.append(f"{m.group(1)}: {m.group(2)}" if m else item)
        if items:
            parts.append("const { " + ", ".join(items) + " } = " + req + ";")
    return " ".join(parts).encode()


if __name__ == "__main__":
    sys.stdout.write(strip(open(sys.argv[1], "rb").read()))

"""Which PyPI projects might carry a code model's weights (thirteenth pass).

Reads PyPI's simple index (every project name), keeps the names that look
like code retrievers or small embedders, and prints the largest file of
each one's newest release, largest first. A project that carries weights
shows up by size; the rest are clients and tools that download a model.

    python3 registry.py > registry.txt
"""
import concurrent.futures as cf
import json
import re
import urllib.request

NAMES = re.compile(
    r"coderank|code-?embed|codeembed|bge-?small|jina.*code|unixcoder|codesage|gte-?small"
    r"|e5-?small|arctic-embed|nomic-embed|code-?search|code-?retriev|cornstack"
    r"|^(bge|e5|gte)(-|$)|-(bge|e5|gte|minilm|jina|nomic|model2vec|potion)(-|$)|minilm|model2vec",
    re.I,
)
EMBED = re.compile(r"embed", re.I)
EMBED_WITH = re.compile(r"onnx|local|offline|bundle|code|static|tiny|small", re.I)
NOT = re.compile(r"snowflake|fake-bge|bytedance|odoo|tinymce|pyobjc|streamlit", re.I)


def names():
    # The HTML form: the JSON form is not served through this machine's proxy.
    html = urllib.request.urlopen("https://pypi.org/simple/", timeout=300).read().decode()
    for n in re.findall(r'<a href="[^"]*/">([^<]+)</a>', html):
        if NOT.search(n):
            continue
        if NAMES.search(n) or (EMBED.search(n) and EMBED_WITH.search(n)):
            yield n


def largest(name):
    try:
        d = json.load(urllib.request.urlopen(f"https://pypi.org/pypi/{name}/json", timeout=30))
    except Exception as e:  # a name the JSON API does not serve
        return name, "?", 0, str(e)[:40], ""
    size, file = max([(u["size"], u["filename"]) for u in d["urls"]] or [(0, "")])
    return name, d["info"]["version"], size, file, (d["info"]["summary"] or "")[:80]


def main():
    found = sorted(set(names()))
    with cf.ThreadPoolExecutor(8) as ex:
        rows = sorted(ex.map(largest, found), key=lambda r: -r[2])
    print(f"{len(rows)} projects")
    for name, version, size, file, summary in rows:
        print(f"{size:>11}  {name} {version}  {file}  | {summary}")


if __name__ == "__main__":
    main()

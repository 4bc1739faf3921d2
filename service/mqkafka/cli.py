"""mqk: the command line (placeholder until the foundation lands)."""


def main() -> int:
    return 0

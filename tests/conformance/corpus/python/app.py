import logging
import subprocess

log = logging.getLogger(__name__)


def run(cmd, cwd=None):
    print("running", cmd)
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE)
    out, _ = proc.communicate()
    if proc.returncode == proc.returncode:
        print(out)
    return out


class Greeter:
    def __init__(self, name):
        self.name = name

    def greet(self, loud=False):
        square = lambda: self.name * 2
        if loud:
            print(self.name.upper(), end="!\n")
        else:
            print(self.name)
        return square()


def compute(values):
    total = 0
    for v in values:
        total = total + v
    assert total == total
    return total

/**
 * The program the Python process runs: it reads one JSON request per line from fd 3, runs the code
 * in one namespace kept for the whole session (so variables survive between calls), and writes one
 * JSON answer per line to fd 4. The protocol has its own descriptors so that whatever the user's code
 * prints, or a program it starts writes to fd 1, can never be mistaken for an answer. A last
 * expression's value is printed as an interactive interpreter would. Printed output is kept up to
 * the limit given as the first argument; the rest is only counted.
 */
export const PYTHON_DRIVER = String.raw`
import ast, io, json, os, signal, sys, traceback
# A sandboxed process starts with SIGINT ignored (so the sandbox around it survives an interrupt): take it back.
signal.signal(signal.SIGINT, signal.default_int_handler)
_requests = os.fdopen(3, "r", encoding="utf-8")
_answers = os.fdopen(4, "w", encoding="utf-8")
_limit = int(sys.argv[1])
_name = "<python_repl>"

class _Capture(io.TextIOBase):
    def __init__(self):
        self.parts, self.size, self.dropped = [], 0, 0
    def writable(self):
        return True
    def write(self, text):
        room = _limit - self.size
        if room > 0:
            self.parts.append(text[:room])
            self.size += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

_namespace = {"__name__": "__main__", "__builtins__": __builtins__}

def _run(code, out):
    tree = ast.parse(code, _name, "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, _name, "exec"), _namespace)
    if last is not None:
        value = eval(compile(last, _name, "eval"), _namespace)
        if value is not None:
            out.write(repr(value) + "\n")

def _describe(error):
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != _name:
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(error), error, tb))

while True:
    try:
        line = _requests.readline()
    except KeyboardInterrupt:
        continue
    if not line:
        break
    request = json.loads(line)
    capture = _Capture()
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = capture
    error = None
    try:
        _run(request["code"], capture)
    except KeyboardInterrupt:
        error = "KeyboardInterrupt: the call was interrupted; the session and its variables are kept."
    except SystemExit as e:
        error = "SystemExit(%r): exit() does not end this session; its variables are kept." % (e.code,)
    except BaseException as e:
        error = _describe(e)
    finally:
        sys.stdout, sys.stderr = saved
    answer = {"id": request["id"], "output": "".join(capture.parts), "dropped": capture.dropped, "error": error}
    _answers.write(json.dumps(answer) + "\n")
    _answers.flush()
`;

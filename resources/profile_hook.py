# SPDX-License-Identifier: MIT
"""AttnScope's start-up hook for `attnscope profile -- COMMAND`: PyTorch's profiler switched on from
outside a program, with no change to its code.

AttnScope writes this file as `sitecustomize.py` into a private folder and puts the folder first on
the program's PYTHONPATH, so every Python the command starts runs it at start-up (then the
sitecustomize it hides, if there is one). It does nothing until the program imports torch; then it
starts torch.profiler (CPU activity, CUDA activity where CUDA is available, shapes recorded) and
writes each finished step's Kineto trace into ATTNSCOPE_PROFILE_DIR. It never writes to the
program's stdout or stderr: what it does is appended, one JSON object a line, to events.jsonl there:

  python   argv, version: a Python started with the hook
  skipped  why: this process is not profiled (torchrun's launcher, a multiprocessing worker)
  torch    torch version, cuda, rank, world, mode: the profiler is on in this process
  step     trace (the file), step (0-based, per process), mode ("optimizer" or "time"), first and
           last optimizer step it covers, partial (cut short by the program's end)
  error    message: the profiler failed; the program goes on without it
  exception lines: the traceback of an exception that ended the program (sys.excepthook)
  aside    why: the program started its own profiler; AttnScope's kept its step and stopped
  notice   message: what changed in how this process is profiled
  exit     steps written by this process

Steps: the program's optimizer steps (the first optimizer that steps; each step taken once its
step() has returned, see watch_optimizers) where it has them; before the first one, and in programs without one, slices of time. A time
slice ends by a real-time signal sent to the main thread, whose handler runs there between two
Python bytecodes: the profiler records the ops of the thread that starts it, so it is started and
stepped on the main thread only. ATTNSCOPE_PROFILE holds the schedule as JSON: steps ("auto",
"optimizer", "time"), wait, warmup, active, repeat (optimizer steps, as torch.profiler.schedule's;
repeat 0: no end), slice (seconds a time step lasts), delay (seconds from the start before any
recording), duration (seconds of recording at most; 0: no limit).
"""
import os
import sys


def _attnscope_profile():
    import json
    import threading
    import time

    out_dir = os.environ.get("ATTNSCOPE_PROFILE_DIR")
    if not out_dir or not os.path.isdir(out_dir):
        return
    try:
        config = json.loads(os.environ.get("ATTNSCOPE_PROFILE", "{}"))
    except ValueError:
        config = {}
    started = time.monotonic()
    log_fd = os.open(os.path.join(out_dir, "events.jsonl"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    os.set_inheritable(log_fd, False)

    def log(event, **fields):
        fields["event"] = event
        fields["pid"] = os.getpid()
        try:
            os.write(log_fd, (json.dumps(fields) + "\n").encode())
        except OSError:
            pass

    log("python", argv=list(sys.argv), version=sys.version.split()[0])

    # A SIGTERM the hook turned into SystemExit ends the process by that signal after everything else at
    # exit (registered first, this runs last), so its exit status is what it would have been.
    import atexit

    terminated_by = [0]

    def end_by_signal():
        if terminated_by[0]:
            import signal

            signal.signal(terminated_by[0], signal.SIG_DFL)
            os.kill(os.getpid(), terminated_by[0])

    atexit.register(end_by_signal)

    # The program's last words when an exception ends it (its stderr is the program's own, untouched).
    previous_hook = sys.excepthook

    def excepthook(kind, value, tb):
        try:
            import traceback

            log("exception", lines=traceback.format_exception(kind, value, tb)[-30:])
        except Exception:
            pass
        previous_hook(kind, value, tb)

    sys.excepthook = excepthook

    def profiled_process():
        """Why this process is not one to profile ("" when it is)."""
        command = " ".join(getattr(sys, "orig_argv", sys.argv))
        if os.environ.get("LOCAL_RANK") is None and (
            os.path.basename(sys.argv[0] if sys.argv else "") == "torchrun"
            or "torch.distributed.run" in command
            or "torch.distributed.launch" in command
        ):
            return "torchrun's launcher (its workers are profiled)"
        if "multiprocessing" in command or "--multiprocessing-fork" in command:
            return "a multiprocessing worker"
        return ""

    def on_torch(torch):
        why = profiled_process()
        if why:
            log("skipped", why=why)
            return
        if threading.current_thread() is not threading.main_thread():
            log("skipped", why="torch was imported on a thread other than the main one")
            return
        try:
            Profiling(torch).start()
        except Exception as e:  # the program goes on without the profiler
            log("error", message="the profiler could not start: %s: %s" % (type(e).__name__, e))

    class Profiling:
        def __init__(self, torch):
            import signal
            import warnings

            from torch.profiler import ProfilerAction, ProfilerActivity, profile

            self.torch = torch
            self.signal = signal
            self.Action = ProfilerAction
            self.mode = config.get("steps", "auto")
            self.wait = max(0, int(config.get("wait", 1)))
            self.warmup = max(0, int(config.get("warmup", 1)))
            self.active = max(1, int(config.get("active", 3)))
            self.repeat = max(0, int(config.get("repeat", 1)))
            self.slice = max(0.05, float(config.get("slice", 1.0)))
            self.delay = max(0.0, float(config.get("delay", 0.0)))
            self.duration = max(0.0, float(config.get("duration", 0.0)))
            self.clock = "time" if self.mode in ("auto", "time") else "optimizer"
            self.step_clock = self.clock  # what the step under way is: a time slice or an optimizer step
            self.optimizer = None  # the optimizer whose steps are the profiler's
            self.optimizer_steps = 0  # its steps so far
            self.step_first = 0  # the optimizer step the step under way began after
            self.switched_at = 0  # optimizer steps when the steps became the optimizer's
            self.steps = 0  # traces written
            self.recording_since = None
            self.said_distributed = False
            self.done = False
            self.busy = False
            self.ours = False  # AttnScope's own profiler is changing state (not the program's)
            self.ending = False
            self.rank = os.environ.get("RANK")
            self.world = os.environ.get("WORLD_SIZE")
            self.name = "rank%s" % self.rank if self.rank is not None else "pid%d" % os.getpid()
            if self.mode == "auto" and self.rank is not None:
                # A torchrun worker trains: its steps are its optimizer's, the profiler idle until the first
                # (time slices through init_process_group and DDP's set-up crashed a 2-rank gloo job's
                # workers a quarter of the time).
                self.mode = self.clock = self.step_clock = "optimizer"
                log("notice", message="a torchrun worker: its steps are its optimizer steps (--steps time to slice it by time)")
            cuda = bool(torch.cuda.is_available())
            activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
            # Each active step is saved on its own, so the steps stream; the profiler warns each cycle.
            warnings.filterwarnings("ignore", message=".*Profiler clears events at the end of each cycle")
            self.profiler = profile(
                activities=activities,
                record_shapes=True,
                schedule=self.action,
                on_trace_ready=self.save,
            )
            log("torch", torch=torch.__version__, cuda=cuda, rank=self.rank, world=self.world, mode=self.clock)

        def held_interrupts(self):
            """Ctrl+C (KeyboardInterrupt) and SIGTERM (SystemExit, see on_term) held back while the
            profiler changes state: raised inside it, they would leave the profiler half stopped, and the
            process crashing at its exit. Raised as soon as the change is done. Only the main thread can
            change Python's signal handlers."""
            import contextlib

            signal = self.signal
            if threading.current_thread() is not threading.main_thread():
                return contextlib.nullcontext()

            @contextlib.contextmanager
            def held():
                pending = []
                previous = {}
                for signum in (signal.SIGINT, signal.SIGTERM):
                    previous[signum] = signal.signal(signum, lambda n, frame: pending.append((n, frame)))
                try:
                    yield
                finally:
                    for signum, handler in previous.items():
                        signal.signal(signum, handler)
                    for signum, frame in pending[:1]:
                        handler = previous[signum]
                        if callable(handler):
                            handler(signum, frame)
                        elif handler == signal.SIG_DFL:
                            os.kill(os.getpid(), signum)

            return held()

        def start(self):
            self.watch_other_profilers()
            self.ours = True
            try:
                with self.held_interrupts():
                    self.profiler.start()
            finally:
                self.ours = False
            if self.profiler.current_action == self.Action.RECORD_AND_SAVE:
                self.recording_since = time.monotonic() - started
            if self.mode != "time":
                self.watch_optimizers()
            if self.mode != "optimizer":
                self.sig = self.signal.SIGRTMIN + 7
                self.signal.signal(self.sig, lambda signum, frame: self.step("time"))
                self.signal.siginterrupt(self.sig, False)
                main = threading.main_thread().ident
                threading.Thread(target=self.ticker, args=(main,), name="attnscope-profile", daemon=True).start()
            term = self.signal.getsignal(self.signal.SIGTERM)
            if term == self.signal.SIG_DFL:
                self.signal.signal(self.signal.SIGTERM, self.on_term)
            import atexit

            atexit.register(self.end)

        # --- the schedule -------------------------------------------------------------------------
        def window_open(self):
            now = time.monotonic() - started
            if now < self.delay:
                return False
            return not self.duration or self.recording_since is None or now - self.recording_since < self.duration

        def action(self, _step):
            A = self.Action
            if self.done or self.ending or not self.window_open():
                return A.NONE
            if self.clock == "time":
                return A.RECORD_AND_SAVE
            if self.optimizer is None:
                # Idle until the first optimizer step: a profiler on through init_process_group and DDP's
                # set-up, then stopped, crashed a 2-rank gloo job's workers now and then.
                return A.NONE
            k = self.optimizer_steps - self.switched_at
            cycle = self.wait + self.warmup + self.active
            if self.repeat and k >= self.repeat * cycle:
                self.done = True
                return A.NONE
            position = k % cycle
            if position < self.wait:
                return A.NONE
            if position < self.wait + self.warmup:
                return A.WARMUP
            return A.RECORD_AND_SAVE

        def step(self, why):
            if self.busy or self.ending or self.done:  # a time slice's signal inside a step under way
                return
            if why == "time" and self.distributed():
                return  # see distributed()
            self.busy = self.ours = True
            try:
                with self.held_interrupts():
                    self.profiler.step()
                if self.profiler.current_action == self.Action.RECORD_AND_SAVE and self.recording_since is None:
                    self.recording_since = time.monotonic() - started
                self.step_first = self.optimizer_steps
                self.step_clock = self.clock
            except Exception as e:
                log("error", message="a profiler step failed: %s: %s" % (type(e).__name__, e))
                self.done = True
            finally:
                self.busy = self.ours = False

        def watch_optimizers(self):
            """Calls on_optimizer_step after each optimizer step has returned. torch.optim wraps every
            optimizer class's step (Optimizer.profile_hook_step) in a record_function range, its post
            hooks inside it: a profiler stopped and started there leaves that range open across two
            profiling sessions, which can crash a process whose other threads record too (DDP's). So the
            wrapping itself is wrapped, and the step is taken once the range has closed; the global post
            hook is the fallback where torch.optim has no such wrapper."""
            import functools

            from torch.optim import Optimizer

            wrap = getattr(Optimizer, "profile_hook_step", None)
            if wrap is None:
                from torch.optim.optimizer import register_optimizer_step_post_hook

                register_optimizer_step_post_hook(lambda optimizer, args, kwargs: self.on_optimizer_step(optimizer))
                return
            on_step = self.on_optimizer_step

            def profile_hook_step(func):
                hooked = wrap(func)

                @functools.wraps(hooked)
                def step(*args, **kwargs):
                    out = hooked(*args, **kwargs)
                    if args:
                        on_step(args[0])
                    return out

                return step

            Optimizer.profile_hook_step = staticmethod(profile_hook_step)

        def distributed(self):
            """Whether torch.distributed is initialized here. A time slice then ends only at an optimizer
            step or the program's end: its signal lands wherever the main thread is, and a profiler
            stopped while a data-parallel backward pass has its collectives in flight on other threads
            crashed DDP workers (a third of the runs of a 2-rank gloo job)."""
            if self.said_distributed:
                return True
            dist = getattr(self.torch, "distributed", None)
            try:
                on = bool(dist and dist.is_available() and dist.is_initialized())
            except Exception:
                on = False
            if on:
                self.said_distributed = True
                log("notice", message="torch.distributed is initialized: steps end at optimizer steps (or the "
                    "program's end), not at time slices")
            return on

        def on_optimizer_step(self, optimizer):
            first = self.optimizer is None
            if first:
                self.optimizer = optimizer
            if optimizer is not self.optimizer:
                return
            self.optimizer_steps += 1
            if first:  # the steps are the optimizer's from now on, counted from here
                self.clock = "optimizer"
                self.switched_at = self.optimizer_steps
            self.step("optimizer")

        def ticker(self, main):
            # A signal at the end of the delay starts the recording, then one at the end of each slice
            # (the last one when the duration is over) until the steps are the optimizer's.
            if self.delay:
                time.sleep(self.delay)
                self.signal.pthread_kill(main, self.sig)
            while not self.done and not self.ending and self.clock == "time":
                if self.duration and self.recording_since is not None:
                    left = self.recording_since + self.duration - (time.monotonic() - started)
                    time.sleep(max(0.0, min(self.slice, left + 0.01)))
                else:
                    time.sleep(self.slice)
                if self.done or self.ending or self.clock != "time":
                    break
                self.signal.pthread_kill(main, self.sig)
                if self.duration and self.recording_since is not None and not self.window_open():
                    break

        # --- the traces ---------------------------------------------------------------------------
        def save(self, profiler):
            path = os.path.join(out_dir, "%s-step%05d.json" % (self.name, self.steps))
            partial = self.ending
            try:
                profiler.export_chrome_trace(path + ".part")
                os.replace(path + ".part", path)
            except Exception as e:
                log("error", message="a step's trace could not be written: %s: %s" % (type(e).__name__, e))
                return
            log(
                "step",
                trace=path,
                step=self.steps,
                mode=self.step_clock,
                first=self.step_first,
                last=self.optimizer_steps,
                partial=partial,
                rank=self.rank,
                name=self.name,
            )
            self.steps += 1

        def end(self):
            """At the program's end (normal, an exception, Ctrl+C): the step under way is kept."""
            if self.ending:
                return
            self.ending = self.ours = True
            try:
                if self.profiler.current_action in (self.Action.RECORD, self.Action.RECORD_AND_SAVE):
                    self.profiler.current_action = self.Action.RECORD_AND_SAVE
                with self.held_interrupts():
                    self.profiler.stop()
            except Exception as e:
                log("error", message="the last step could not be kept: %s: %s" % (type(e).__name__, e))
            finally:
                self.ours = False
            log("exit", steps=self.steps)

        def watch_other_profilers(self):
            """One profiler at a time in a process: when the program starts its own (torch.profiler or
            torch.autograd.profiler), AttnScope's keeps the step under way and steps aside for good, so
            the program's profiler works as it would without AttnScope."""
            from torch.autograd import profiler as autograd_profiler

            prepare = autograd_profiler.profile._prepare_trace
            hook = self

            def _prepare_trace(profile_self, *args, **kwargs):
                if not hook.ours and not hook.ending:
                    hook.step_aside()
                return prepare(profile_self, *args, **kwargs)

            autograd_profiler.profile._prepare_trace = _prepare_trace

        def step_aside(self):
            if self.done:
                return
            log("aside", why="the program started its own torch.profiler")
            self.end()
            self.done = True

        def on_term(self, signum, frame):
            # SIGTERM (Stop, or torchrun ending its workers): unwound as an exception, so the ranges
            # open on the stack close before the profiler stops (stopped inside one, it crashed the
            # process at exit); the step under way is kept at exit, then the program ends by the signal
            # as it would have (see terminated_by).
            terminated_by[0] = signum
            raise SystemExit(128 + signum)

    # Runs on_torch once torch's own import is complete, on the thread that imported it.
    import importlib.abc
    import importlib.machinery

    class TorchWatch(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name != "torch":
                return None
            sys.meta_path.remove(self)
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            if spec is None or spec.loader is None:
                return spec
            loader = spec.loader

            class Loader(importlib.abc.Loader):
                def create_module(self, spec):
                    return loader.create_module(spec)

                def exec_module(self, module):
                    loader.exec_module(module)
                    on_torch(module)

            spec.loader = Loader()
            return spec

    if "torch" in sys.modules:
        on_torch(sys.modules["torch"])
    else:
        sys.meta_path.insert(0, TorchWatch())


def _attnscope_chain():
    """The sitecustomize this one hides on the path, run as it would have been."""
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


try:
    _attnscope_profile()
except Exception:  # never in the program's way
    pass
_attnscope_chain()

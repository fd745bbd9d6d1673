"""Scheduling policies written in Python, for ``gridsched.replay(trace, policy=...)``.

A policy is any object with a ``round(self, r)`` method. The simulator calls it at every
event time, after that instant's completions and arrivals, with a :class:`gridsched.Round`
``r``: what changed (``r.arrived()``, ``r.completed()``, ``r.capacity_released()``), what is
(``r.now``, ``r.free_now()``, ``r.waiting()``, ``r.running()``, ``r.profile()``), and what
the policy may do (``r.start(j)``, ``r.hold(j, t)``, ``r.reserve(j, t)``, ``r.wake_at(t)``).
The engine refuses (raises ``GridschedError``) a start that does not fit, and the replay
audits the finished schedule, so a policy cannot produce an invalid one.

:class:`Easy` is EASY backfilling written against that API. It gives the built-in
``"easy"`` policy's schedule job for job (``tests/test_policy.py`` checks it on the KTH and
HPC2N logs), and it is the template for a policy of your own: :class:`ShortestFirst` changes
only the backfilling order.
"""

from __future__ import annotations


class Fcfs:
    """First come, first served: the queue head starts when it fits; nothing overtakes it."""

    def __init__(self) -> None:
        self.queue: list = []

    def round(self, r) -> None:
        queue = self.queue
        queue.extend(r.arrived())
        while queue and r.fits_now(queue[0]):
            r.start(queue.pop(0))


class Easy:
    """EASY (aggressive) backfilling on one cluster: start queue heads while they fit; the
    first that does not gets a reservation at the earliest time enough processors are free
    (the *shadow* time); then every later job, in queue order, starts now if it fits and does
    not delay that reservation (it ends by the shadow time, or uses only processors the head
    leaves free then). ``self.checked`` skips the jobs already found not to fit when nothing
    was released since: they still do not, and skipping them keeps a round cheap."""

    def __init__(self) -> None:
        # Waiting jobs as [index, procs, planned run time], in queue order.
        self.queue: list = []
        self.checked = 0

    def order(self, r) -> None:
        """Hook for variants: reorder ``self.queue[1:]`` (the backfilling candidates)."""

    def round(self, r) -> None:
        queue = self.queue
        for j in r.arrived():
            queue.append((j, r.procs(j), r.planned_run_time(j)))
        full = r.capacity_released() or r.reservations_changed()
        head_started = False
        free = r.free_now()
        while queue:
            j, procs, _ = queue[0]
            if free < procs or not (r.is_monotone() or r.fits_now(j)):
                break
            queue.pop(0)
            r.start(j)
            free -= procs
            head_started = True
        if not queue:
            self.checked = 0
            return
        first = 1 if (full or head_started) else max(self.checked, 1)
        if first >= len(queue):
            self.checked = len(queue)
            return
        self.order(r)
        head, head_procs, head_run = queue[0]
        now = r.now
        monotone = r.is_monotone()
        if monotone:
            shadow = r.first_at_least(head_procs)
            extra = r.free_at(shadow) - head_procs
        else:
            shadow = r.earliest_fit(head_run, head_procs)
            r.hold(head, shadow)
            extra = 0
        kept = queue[:first]
        i, n = first, len(queue)
        while i < n and free > 0:
            entry = queue[i]
            i += 1
            j, procs, run = entry
            if procs <= free and (
                (now + run <= shadow or procs <= extra) if monotone else r.fits_now(j)
            ):
                r.start(j)
                if monotone and now + run > shadow:
                    extra -= procs
                free -= procs
            else:
                kept.append(entry)
        kept.extend(queue[i:])
        self.queue = kept
        self.checked = len(kept)


class ShortestFirst(Easy):
    """EASY whose backfilling candidates are tried shortest planned run time first (the head
    keeps its place and its reservation): a policy of your own in three lines. It re-sorts at
    every round, so it examines the whole queue each time."""

    def order(self, r) -> None:
        self.queue[1:] = sorted(self.queue[1:], key=lambda e: (e[2], e[0]))
        self.checked = 0

    def round(self, r) -> None:
        self.checked = 0
        super().round(r)

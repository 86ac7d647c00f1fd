"""Place a system among the references: the one function from a system's predictions (a file, or the runs of a
benchmark) to its results with their intervals, its leaderboard beside the reference runs of the same signature,
its paired tests and the signature of every number. ``ucdcr evaluate``, ``ucdcr benchmark`` and their Python twins
(:func:`ucdcr.evaluate`, :func:`ucdcr.benchmark_tables`) call it; :mod:`ucdcr.report` only formats what it returns.

- :func:`place_predictions`: a predictions file scored with a protocol (:func:`ucdcr.analysis.evaluate.
  evaluate_folders`), made runs of a system named after the file (:func:`ucdcr.systems.framework.standings.
  evaluation_runs`), then :func:`place_runs`; with ``against``, a second file scored on the same mentions and
  compared with the first (:func:`compare_results`).
- :func:`place_runs`: runs of the systems under test beside the reference runs (``references``: ``shipped``,
  ``local`` or ``none``, :data:`~ucdcr.systems.framework.standings.REFERENCE_SOURCES`) whose signature agrees
  with theirs, as one standing (:func:`~ucdcr.systems.framework.standings.standing`); a reference system the
  benchmark ran itself is not taken again. Datasets whose data or setting no reference shares are left out of
  the leaderboard, and one note says which, why, and the command that computes the references here. With
  ``each``, the system's mean is also compared with every reference system's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ucdcr.analysis.evaluate import Evaluation, Predictions, evaluate_folders
from ucdcr.analysis.protocol import DatasetMean, Protocol, ProtocolResult, column_comparisons, ucdcr_means
from ucdcr.analysis.signature import Signature, Units, unit_kind
from ucdcr.scoring.bootstrap import RESAMPLES, Comparison, Method, check_resamples
from ucdcr.systems.framework.names import BUILTIN
from ucdcr.systems.framework.standings import (
    Standing,
    evaluation_runs,
    matching_references,
    paired_with_each,
    reference_runs,
    references_note,
    standing,
)
from ucdcr.systems.framework.store import StoredRun, dataset_fingerprint, now


@dataclass
class Placement:
    """What :func:`place_runs` gives: the leaderboard of the systems under test beside the references (None without
    a reference or a number), each system's comparisons with every reference system (``each``), and notes."""

    standing: Standing | None
    references: list[StoredRun] = field(default_factory=list)
    each: dict[str, dict[str, Comparison | None]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass
class PairedMean:
    """Two systems' means of one dataset, level and type (the uCDCR mean over datasets: dataset ``uCDCR``), and
    their paired comparison on the CoNLL F1 (None without units to resample)."""

    first: DatasetMean
    second: DatasetMean
    comparison: Comparison | None


@dataclass
class PredictionsPlacement:
    """A predictions file placed (:func:`place_predictions`): its evaluation (protocol results and notes), its runs,
    its placement among the references, the comparison with another file (``against``) and the signature of its
    numbers."""

    evaluation: Evaluation
    runs: list[StoredRun]
    placement: Placement
    signature: Signature
    against: Evaluation | None = None
    compared: list[PairedMean] = field(default_factory=list)


def place_predictions(
    predictions: Predictions,
    folders: Mapping[str, Path],
    split: str = "test",
    protocol: Protocol | None = None,
    references: str = "shipped",
    cache_dir: Path | None = None,
    resamples: int = RESAMPLES,
    method: Method = "randomization",
    against: Predictions | None = None,
    each: bool = False,
) -> PredictionsPlacement:
    """Score ``predictions`` on the ``split`` mentions of ``folders`` with ``protocol`` (default: the ucdcr
    protocol) and place them (module docstring). References exist for the test split with gold mentions only."""
    protocol = protocol or Protocol()
    check_resamples(resamples)
    evaluation = evaluate_folders(predictions, folders, split, protocol)
    fingerprints = {result.dataset: dataset_fingerprint(folders[result.dataset]) for result in evaluation.results}
    name = predictions.path.name
    runs = evaluation_runs(evaluation.results, name, str(predictions.path), fingerprints, protocol, now())
    signature = results_signature(evaluation.results, fingerprints, protocol, split, evaluation.mentions, resamples)
    if split != "test" or evaluation.mentions != "gold":
        placement = Placement(None)
        if references != "none":
            placement.notes.append(
                f"no leaderboard: the reference runs score the test split's gold mentions, not the {split} split's "
                f"{evaluation.mentions} mentions"
            )
    else:
        placement = place_runs(runs, [name], protocol, references, cache_dir, resamples, method, each)
    found = PredictionsPlacement(evaluation, runs, placement, signature)
    if against is not None:
        found.against = evaluate_folders(against, folders, split, protocol)
        found.compared = compare_results(evaluation.results, found.against.results, resamples, method)
    return found


def place_runs(
    runs: Sequence[StoredRun],
    systems: Sequence[str],
    protocol: Protocol,
    references: str = "shipped",
    cache_dir: Path | None = None,
    resamples: int = RESAMPLES,
    method: Method = "randomization",
    each: bool = False,
    datasets: Sequence[str] = (),
    label: str = "under test",
) -> Placement:
    """``runs`` of ``systems`` beside the reference runs of the same signature (module docstring), the leaderboard's
    columns ``datasets`` (default: those of the runs, in order); ``label``: the source the rows of ``systems``
    show beside the references'."""
    check_resamples(resamples)
    fingerprints = {run.dataset: (run.datasets or {}).get(run.dataset, "") for run in runs}
    datasets = list(datasets) or list(dict.fromkeys(run.dataset for run in runs))
    stored, where = reference_runs(references, cache_dir)
    chosen, reasons = matching_references(stored, fingerprints, protocol, skip=systems)
    notes = []
    if references != "none" and reasons:
        notes.append(references_note(reasons, protocol, references))
    if not chosen:
        return Placement(None, notes=notes)
    shown = [dataset for dataset in datasets if dataset not in reasons]
    reference_systems = _reference_systems(chosen)
    selected = [run for run in [*chosen, *runs] if run.dataset in shown]
    sources = dict.fromkeys(reference_systems, "shipped" if references == "shipped" else "computed here")
    sources.update(dict.fromkeys(systems, label))
    found = standing(selected, [*reference_systems, *systems], shown, protocol, resamples, method, sources)
    found.notes.append(f"Reference runs: {where}.")
    placement = Placement(found, chosen, notes=notes)
    if each:
        placement.each = {
            system: paired_with_each(selected, system, reference_systems, found.common, resamples, method)
            for system in systems
        }
    return placement


def _reference_systems(runs: Sequence[StoredRun]) -> list[str]:
    """The systems of reference runs: the built-in ones in their order, then the others by name."""
    present = {run.system for run in runs}
    return [name for name in BUILTIN if name in present] + sorted(present - set(BUILTIN))


def results_signature(
    results: Sequence[ProtocolResult],
    fingerprints: Mapping[str, str],
    protocol: Protocol,
    split: str,
    mentions: str,
    resamples: int,
) -> Signature:
    """The signature of protocol results (one per dataset): their data, setting, and units of the joint means."""
    from ucdcr.version import __version__

    units = []
    for result in results:
        joint = next((mean for mean in result.means if mean.level == protocol.level and not mean.type), None)
        if joint is not None and joint.units is not None and not isinstance(joint.units, tuple):
            units.append(Units(result.dataset, len(joint.units.units), unit_kind(protocol)))
    data = tuple((result.dataset, fingerprints[result.dataset]) for result in results)
    return Signature(data, protocol, split, mentions, tuple(units), resamples, (1,), (__version__,))


def compare_results(
    first: Sequence[ProtocolResult],
    second: Sequence[ProtocolResult],
    resamples: int = RESAMPLES,
    method: Method = "randomization",
) -> list[PairedMean]:
    """Two systems' results on the same mentions, paired per dataset, level and type (and the uCDCR mean with
    several datasets) on the CoNLL F1."""
    a_means = [mean for result in first for mean in result.means]
    b_means = {(m.dataset, m.level, m.type): m for result in second for m in result.means}
    pairs = [(m, b_means[(m.dataset, m.level, m.type)]) for m in a_means if (m.dataset, m.level, m.type) in b_means]
    if len(first) > 1:
        summary_b = {(m.level, m.type): m for m in ucdcr_means([m for r in second for m in r.means])}
        pairs += [(m, summary_b[(m.level, m.type)]) for m in ucdcr_means(a_means) if (m.level, m.type) in summary_b]
    return [PairedMean(a, b, _paired(a, b, resamples, method)) for a, b in pairs]


def _paired(a: DatasetMean, b: DatasetMean, resamples: int, method: Method) -> Comparison | None:
    if a.units is None or b.units is None or resamples <= 0:
        return None
    return column_comparisons(a.units, b.units, resamples, method).get("F1_CONLL")

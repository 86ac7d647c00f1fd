"""Several datasets built at once (``-j N`` with several datasets, ucdcr.pipeline.several): the same files as built one
after another, the builds under way together, the reports in the order asked, one dataset's error not stopping the
others."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.fixtures.raw.ecbplus import write_ecbplus_raw
from tests.fixtures.raw.meantime import write_meantime_raw_folder
from tests.fixtures.raw.np4e import write_np4e_raw_folder

import ucdcr
from ucdcr.errors import MissingRawData
from ucdcr.pipeline.build import build_dataset
from ucdcr.pipeline.executor import LocalExecutor
from ucdcr.pipeline.ray_executor import RayExecutor
from ucdcr.pipeline.several import BuildRequest, at_once, build_datasets
from ucdcr.registry import get

DATASETS = ["np4e", "ecbplus", "meantime"]


def files_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def raw(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = write_ecbplus_raw(tmp_path_factory.mktemp("raw"))
    write_np4e_raw_folder(folder / get("np4e").raw_folder)
    write_meantime_raw_folder(folder / get("meantime").raw_folder)
    return folder


def test_how_many_at_once() -> None:
    assert at_once(LocalExecutor(1), 5) == 1  # one job: one dataset after another
    assert at_once(LocalExecutor(4), 3) == 3  # at most one per dataset
    assert at_once(LocalExecutor(2), 5) == 2  # at most one per job
    assert at_once(LocalExecutor(8), 1) == 1
    assert at_once(RayExecutor.__new__(RayExecutor), 5) == 1  # a Ray cluster's workers share each dataset


@pytest.mark.parametrize(("jobs", "names"), [(2, DATASETS), (4, DATASETS[:2])])  # 4 jobs, 2 datasets: 2 pools of 2
def test_at_once_gives_the_files_of_one_after_another(jobs: int, names: list[str], raw: Path, tmp_path: Path) -> None:
    for dataset in names:
        build_dataset(dataset, raw_dir=raw, data_dir=tmp_path / "serial", progress=False)
    reports = ucdcr.build(names, raw_dir=raw, data_dir=tmp_path / "together", jobs=jobs, progress=False)
    assert [report.dataset for report in reports] == names  # the order asked, whatever order they were built in
    for dataset in names:
        together = files_bytes(tmp_path / "together" / dataset)
        assert together == files_bytes(tmp_path / "serial" / dataset) and len(together) >= 9


def test_builds_run_together_and_an_error_stops_only_its_dataset(raw: Path, tmp_path: Path) -> None:
    events: list[tuple[str, str, int, int | None]] = []

    def progress(dataset: str):  # type: ignore[no-untyped-def]
        return lambda description, done, total: events.append((dataset, description, done, total))

    requests = [BuildRequest(name) for name in ("ecbplus", "gvc", "meantime")]  # no GVC raw files in the fixture
    outcomes = list(build_datasets(requests, raw, tmp_path, LocalExecutor(2), progress))
    by_name = {outcome.dataset_id: outcome for outcome in outcomes}
    assert by_name["gvc"].missing and isinstance(by_name["gvc"].error, MissingRawData)
    assert by_name["ecbplus"].report is not None and by_name["meantime"].report is not None
    assert (tmp_path / "ecbplus" / "build_report.json").is_file() and not (tmp_path / "gvc").exists()
    # progress came from both builds, and the second began before the first ended: they were under way together
    first_end = {name: max(i for i, event in enumerate(events) if event[0] == name) for name in ("ecbplus", "meantime")}
    first_start = {name: min(i for i, event in enumerate(events) if event[0] == name) for name in first_end}
    assert max(first_start.values()) < min(first_end.values())


def test_the_api_raises_the_first_error_once_every_build_ended(raw: Path, tmp_path: Path) -> None:
    with pytest.raises(MissingRawData, match="gvc"):
        ucdcr.build(["gvc", "np4e"], raw_dir=raw, data_dir=tmp_path, jobs=2, progress=False)
    assert (tmp_path / "np4e" / "build_report.json").is_file()  # built although the first dataset failed

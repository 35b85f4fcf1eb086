"""Where a download comes from: the page and the datasets chosen on it (:class:`ExportContext`), written into the
file's name (:func:`export_file_name`) safely, whatever users typed (:func:`slug`)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, replace

from nkcore.common.formatting import name_list

__all__ = ["DatasetRef", "ExportContext", "export_file_name", "slug"]


@dataclass(frozen=True, slots=True)
class DatasetRef:
    """A dataset a view uses: its display name, its id (sha256 hex), its kind and the models / configs it holds."""

    name: str
    id: str
    kind: str
    models: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ExportContext:
    """Where an export comes from: the page's title and the datasets chosen on it (in the order chosen)."""

    page: str = ""
    datasets: tuple[DatasetRef, ...] = ()

    def with_dataset(self, ref: DatasetRef) -> ExportContext:
        """This context with ``ref`` added (a dataset chosen twice on a page is listed once).

        >>> ExportContext("Compare").with_dataset(DatasetRef("a", "1", "paired")).with_dataset(
        ...     DatasetRef("a", "1", "paired")).datasets
        (DatasetRef(name='a', id='1', kind='paired', models=()),)
        """
        if any(d.id == ref.id and d.kind == ref.kind for d in self.datasets):
            return self
        return replace(self, datasets=(*self.datasets, ref))

    @property
    def dataset_names(self) -> str:
        """The datasets' names, comma-separated (each cut to 60 characters); "" when none was chosen.

        >>> ExportContext("Budget", (DatasetRef("ratings A", "1", "ratings"), DatasetRef("preds", "2", "predictions"))
        ...     ).dataset_names
        'ratings A, preds'
        """
        return name_list([d.name for d in self.datasets], limit=4, width=60)

    @property
    def models(self) -> tuple[str, ...]:
        """The models and configs of every dataset, each once, in order."""
        return tuple(dict.fromkeys(m for d in self.datasets for m in d.models))

    def title_lines(self) -> tuple[str, ...]:
        """What a chart image says about its view: "<page>: <dataset names>", then the models or configs in them.

        The page alone when no dataset was chosen; no models line when the datasets name none.

        >>> ExportContext("Compare", (DatasetRef("team evals", "ab12", "paired", ("n=1", "n=3")),)).title_lines()
        ('Compare: team evals', 'configs: n=1, n=3')
        """
        if not self.datasets:
            return (self.page,) if self.page else ()
        first = f"{self.page}: {self.dataset_names}" if self.page else self.dataset_names
        models = self.models
        if not models:
            return (first,)
        word = "configs" if all(d.kind == "paired" for d in self.datasets if d.models) else "models"
        return first, f"{word}: {name_list(models, limit=8, width=30)}"


def slug(text: str, limit: int = 40) -> str:
    """``text`` as a safe piece of a file name: ASCII letters, digits, ``.`` and ``-`` only, lower case, at most
    ``limit`` characters, no leading or trailing ``.`` or ``-`` and no ``..``; "" when nothing is left.

    A name from a user may hold slashes, backslashes, ``..``, quotes, control characters or emoji: none reach the
    file name.

    >>> slug("Sample: worked example (200 cases)"), slug("../../etc/passwd"), slug("<y>|*?"), slug("☃")
    ('sample-worked-example-200-cases', 'etc-passwd', 'y', '')
    """
    s = re.sub(r"[^A-Za-z0-9.]+", "-", text).lower()
    s = re.sub(r"-*\.[-.]*", ".", s)  # a run of dots and dashes holding a dot is one dot: never ".."
    return s[:limit].strip(".-")


def export_file_name(context: ExportContext, name: str, ext: str, day: dt.date) -> str:
    """``nk-planner_<page>_<datasets>_<YYYY-MM-DD>_<name>.<ext>``: where a download comes from, in its name.

    Each part is :func:`slug`-ged and bounded (page 24, datasets about 60 in all: each its share, the first two and
    "and-k-more" past three; name 40 characters), so the name stays under 160 characters whatever users typed; a
    missing part (no dataset chosen) is left out.

    >>> ctx = ExportContext("Budget (N x K)", (DatasetRef("Sample: 500 items x 40 ratings", "ab", "ratings"),))
    >>> export_file_name(ctx, "nk_grid", "csv", dt.date(2026, 12, 1))
    'nk-planner_budget-n-x-k_sample-500-items-x-40-ratings_2026-12-01_nk-grid.csv'
    >>> export_file_name(ExportContext(), "../x", "png", dt.date(2026, 1, 2))
    'nk-planner_2026-01-02_x.png'
    """
    page = slug(context.page, 24)
    page = "home" if page == "nk-planner" else page
    names = [d.name for d in context.datasets]
    if len(names) > 3:
        names = [*names[:2], f"and {len(names) - 2} more"]
    each = max(12, 60 // max(1, len(names)) - 1)  # every dataset named, each cut to its share of 60 characters
    data = "+".join(p for p in (slug(n, each) for n in names) if p)
    parts = ["nk-planner", page, data, day.isoformat(), slug(name, 40) or "export"]
    extension = re.sub(r"[^a-z0-9]", "", ext.lower())[:8] or "dat"
    return "_".join(p for p in parts if p) + "." + extension

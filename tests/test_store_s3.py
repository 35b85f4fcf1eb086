"""nkcore.store on an S3-compatible server (moto's server mode on a loopback port): what only an object store
has. The promises both backends keep are tested in tests/test_store.py and tests/test_store_faults.py, run on a
local folder and on S3 (``store_root``)."""

from __future__ import annotations

import time

import pandas as pd
import pytest

from nkcore import store
from nkcore.errors import DataError
from nkcore.io import fingerprint
from nkcore.store import backends
from nkcore.store import deadline as store_deadline
from tests.conftest import StoreLink, new_bucket

FRAME = pd.DataFrame({"item": ["1", "1", "2"], "rater": ["a", "b", "a"], "label": ["x", "y", "x"]})
OTHER = pd.DataFrame({"item": ["7", "8"], "rater": ["a", "a"], "label": ["z", "z"]})


def test_a_url_in_nkp_data_dir_is_the_store(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    url = new_bucket(s3_endpoint, monkeypatch)
    monkeypatch.setenv(store.ENV_VAR, url)
    assert store.data_dir() == url and store.is_shared()
    meta = store.put(FRAME, "ratings", "r.csv")  # no root: the environment's store
    assert [m.id for m in store.list_datasets()] == [meta.id]
    assert fingerprint(store.get(meta.id)[1]) == meta.id
    monkeypatch.setenv(store.ENV_VAR, "file:///srv/nkp")
    assert not store.is_shared()


def test_the_endpoint_from_aws_endpoint_url(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """botocore's service-independent AWS_ENDPOINT_URL is honoured as well as AWS_ENDPOINT_URL_S3."""
    url = new_bucket(s3_endpoint, monkeypatch)
    monkeypatch.delenv("AWS_ENDPOINT_URL_S3")
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3_endpoint)
    meta = store.put(FRAME, "ratings", "r.csv", root=url)
    assert store.get(meta.id, root=url)[0] == meta


def test_a_bucket_that_does_not_exist(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    new_bucket(s3_endpoint, monkeypatch)
    url = "s3://nkp-no-such-bucket-4f1c/nkp"
    assert store.list_datasets(root=url) == []
    with pytest.raises(DataError, match="its data store does not exist; the dataset was not stored"):
        store.put(FRAME, "ratings", "r.csv", root=url)
    with pytest.raises(DataError, match="no dataset"):
        store.get(fingerprint(FRAME), root=url)


def test_listing_reads_each_description_once_and_again_after_a_rename(
    s3_endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One LIST per listing; a description is read again only when its ETag changes (a rename on any server)."""
    url = new_bucket(s3_endpoint, monkeypatch)
    a = store.put(FRAME, "ratings", "a.csv", root=url)
    store.put(OTHER, "ratings", "b.csv", root=url)
    assert len(store.list_datasets(root=url)) == 2
    backend = backends.open_backend(url)
    assert isinstance(backend, backends.RemoteBackend)
    fs = backend.filesystem()[0]
    reads: list[str] = []
    real = fs.cat_file
    monkeypatch.setattr(fs, "cat_file", lambda path, *args, **kw: reads.append(path) or real(path, *args, **kw))
    assert {m.name for m in store.list_datasets(root=url)} == {"a.csv", "b.csv"}
    assert reads == []
    store.rename(a.id, "pilot", root=url)
    reads.clear()
    assert {m.name for m in store.list_datasets(root=url)} == {"pilot", "b.csv"}
    assert reads == [f"{backend.filesystem()[1]}/{a.id}.json"]


def test_an_unreachable_store_says_so_and_loses_nothing(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store behind a relay that is cut: every call says the store is unreachable (one line, no traceback
    material), nothing is written; once the relay is back, every dataset is there as before."""
    link = StoreLink(int(s3_endpoint.rsplit(":", 1)[1]))
    url = new_bucket(s3_endpoint, monkeypatch)
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", link.url)  # this store's client is made now, through the relay
    monkeypatch.setattr(store_deadline, "RETRY_AFTER_S", 0.2)
    earlier = store.put(FRAME, "ratings", "a.csv", root=url)
    link.cut()
    try:
        with pytest.raises(store.StoreUnreachable, match="the dataset store is unreachable") as info:
            store.list_datasets(root=url, strict=True)
        assert "\n" not in str(info.value) and "nothing in it was changed" in str(info.value)
        assert store.list_datasets(root=url) == []  # the lenient listing of the other callers
        with pytest.raises(store.StoreUnreachable, match="unreachable"):
            store.get(earlier.id, root=url)
        with pytest.raises(store.StoreUnreachable, match="its dataset store is unreachable; the dataset was not"):
            store.put(OTHER, "ratings", "b.csv", root=url)
        with pytest.raises(store.StoreUnreachable, match="cannot delete datasets: its dataset store is unreachable"):
            store.delete(earlier.id, root=url)
        assert store.deleted_at(earlier.id, root=url) is None
    finally:
        link.restore()
    time.sleep(0.3)  # past the fail-fast window
    assert store.list_datasets(root=url) == [earlier]
    meta, frame = store.get(earlier.id, root=url)
    assert meta == earlier and fingerprint(frame) == earlier.id
    assert store.put(OTHER, "ratings", "b.csv", root=url).id == fingerprint(OTHER)
    link.cut()


def test_missing_credentials_are_named_not_reported_as_an_outage(
    s3_endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store answers, but this server has no credentials (botocore's NoCredentialsError): every operation says
    so and names the fix; it is never "the store does not answer"."""
    url = new_bucket(s3_endpoint, monkeypatch)
    meta = store.put(FRAME, "ratings", "r.csv", root=url)
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/dev/null")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    # a server started without credentials: its own client, made from this environment
    from nkcore.store import backends

    monkeypatch.setattr(backends, "_BACKENDS", {})
    no_creds = "has no credentials for its dataset store .*AWS_ACCESS_KEY_ID"
    with pytest.raises(store.StoreUnreachable, match=f"cannot list its datasets: it {no_creds}"):
        store.list_datasets(root=url, strict=True)
    assert store.list_datasets(root=url) == []
    with pytest.raises(store.StoreUnreachable, match=f"cannot read dataset {meta.id}: it {no_creds}"):
        store.get(meta.id, root=url)
    with pytest.raises(store.StoreUnreachable, match=f"cannot save datasets: it {no_creds}.*was not stored"):
        store.put(OTHER, "ratings", "o.csv", root=url)
    with pytest.raises(store.StoreUnreachable) as info:
        store.get(meta.id, root=url)
    assert "did not answer" not in str(info.value) and "unreachable" not in str(info.value)

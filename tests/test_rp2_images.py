"""The rp2 images carried in the repository are the ones recorded.

tools/micropython-boards/images/SHA256SUMS records each file's sha256; its
README names the same hashes beside each file's provenance; every image the
tools name (tools/tapptable/rp2_images.py) is among them.
"""
import re

import pytest

from tools.tapptable import rp2_images

SUMS = rp2_images.recorded_sums()


def test_every_named_image_is_recorded():
    for name in (rp2_images.STOCK_FIRMWARE, rp2_images.ROMFS_FIRMWARE, rp2_images.BOOTROM):
        assert name in SUMS, name


@pytest.mark.parametrize("name", sorted(SUMS))
def test_image_matches_its_recorded_sha256(name):
    path = rp2_images.FOLDER / name
    assert path.is_file(), "%s is recorded in SHA256SUMS but missing" % name
    assert rp2_images.sha256(path) == SUMS[name], "%s differs from its recorded sha256" % name


def test_readme_names_the_same_hashes():
    readme = (rp2_images.FOLDER / "README.md").read_text()
    rows = dict(re.findall(r"^\| `([^`]+)` \|.*\| ([0-9a-f]{64}) \|$", readme, re.M))
    assert rows == SUMS


def test_every_licence_the_readme_names_is_there():
    readme = (rp2_images.FOLDER / "README.md").read_text()
    named = set(re.findall(r"`([a-z0-9-]+\.txt)`", readme))
    assert named == {p.name for p in (rp2_images.FOLDER / "LICENSES").iterdir()}
    assert len(named) == 6


def test_no_file_in_the_folder_is_unrecorded():
    images = {p.name for p in rp2_images.FOLDER.iterdir()
              if p.suffix in (".uf2", ".bin")}
    assert images == set(SUMS)


def test_a_missing_image_says_where_it_was_looked_for(monkeypatch, tmp_path):
    monkeypatch.setenv(rp2_images.ENV, str(tmp_path))
    with pytest.raises(rp2_images.ImageMissing) as err:
        rp2_images.image(rp2_images.BOOTROM)
    assert rp2_images.ENV in str(err.value) and str(tmp_path) in str(err.value)

from pathlib import Path

import pytest
from mcpclient_helpers import Agent, make_agent


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    return make_agent(tmp_path)

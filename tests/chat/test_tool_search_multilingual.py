"""Tool search over catalogs not in English: scripts written without spaces (Chinese, Japanese) are read as
pairs of characters, accents are folded (a request typed without them meets a tool written with them, and the
other way round), and the embedding model receives the text as written. Saved catalogs, no model for the
words; the real all-MiniLM-L6-v2 (tests/embedding_server.py) for the embedding path."""

# ruff: noqa: RUF001 (real Chinese and Japanese text has full-width punctuation)
from __future__ import annotations

import asyncio
import json
import urllib.request

import pytest

from mcp_litellm._chat.tool_search import ToolIndex, entry
from mcp_litellm._chat.tool_search.embedding import EmbeddingRanker, tool_text
from mcp_litellm._chat.tool_search.words import fold, raw_words
from tests.embedding_server import require_model, running_embedding_server

CHINESE = [
    ("launch_app", "启动指定的应用程序。支持 Windows、macOS 和 Linux。"),
    ("list_apps", "列出本机已安装的应用程序。"),
    ("close_app", "根据进程名关闭正在运行的应用程序。"),
    ("get_weather", "查询指定城市的实时天气，包括温度、湿度和风力。"),
    ("get_forecast", "获取指定城市未来七天的天气预报。"),
    ("get_stock_quote", "获取A股股票的实时行情，如最新价、涨跌幅和成交量。"),
    ("translate_text", "将文本翻译成目标语言（中英日韩等）。"),
]
JAPANESE = [
    ("予定を作成", "カレンダーに新しい予定を作成します。開始時刻と終了時刻を指定してください。"),
    ("予定を検索", "キーワードや日付でカレンダーの予定を検索します。"),
    ("read_file", "指定したパスのファイルを読み込み、その内容を返します。"),
    ("write_file", "ファイルに内容を書き込みます。既存のファイルは上書きされます。"),
    ("search_route", "出発駅から到着駅までの電車の乗り換え経路を検索します。"),
]
ACCENTED = [
    ("créer_événement", "Créer un événement dans l'agenda : réunion, rendez-vous ou rappel."),
    ("supprimer_événement", "Supprimer définitivement un événement de l'agenda."),
    ("générer_facture", "Générer une facture PDF pour un client, avec TVA et échéance."),
    ("datei_löschen", "Löscht eine Datei endgültig aus dem Verzeichnis."),
    ("verzeichnis_größe", "Berechnet die Größe eines Verzeichnisses und aller Unterordner."),
    ("buscar_artículo", "Busca artículos en el catálogo por nombre, categoría o código."),
    ("cancelar_pedido", "Cancela un pedido que todavía no se ha enviado."),
    ("send_email", "Send an email message to one or more recipients."),
]


def _index(tools: list[tuple[str, str]], server: str) -> ToolIndex:
    return ToolIndex(entry(name, server, description, {"type": "object", "properties": {}})
                     for name, description in tools)


def _found(index: ToolIndex, request: str) -> list[str]:
    return [e.name for e in index.search(request, 5)]


def test_scripts_without_spaces_are_read_as_pairs_of_characters():
    assert raw_words("删除文件") == ["删除", "除文", "文件"]
    assert raw_words("予定を作成") == ["予定", "定を", "を作", "作成"]
    assert raw_words("查") == ["查"]  # a single character is a word of its own
    # a mixed identifier: the Latin part split as before, the CJK part in pairs
    assert raw_words("getWeather天气预报") == ["get", "weather", "天气", "气预", "预报"]


@pytest.mark.parametrize(("request_", "tool"), [
    ("关闭应用程序", "close_app"),
    ("我的电脑上安装了哪些应用程序", "list_apps"),
    ("北京现在的实时天气", "get_weather"),  # "今天的天气" meets the forecast more (天的, 的天): words cannot tell
    ("上海未来七天的天气预报", "get_forecast"),
    ("查询贵州茅台的股票行情", "get_stock_quote"),
    ("把这段话翻译成英文", "translate_text"),
])
def test_a_chinese_catalog_is_found_by_words(request_, tool):
    assert _found(_index(CHINESE, "apps-cn"), request_)[0] == tool


@pytest.mark.parametrize(("request_", "tool"), [
    ("明日の10時に会議の予定を作成して", "予定を作成"),
    ("来週の予定を検索", "予定を検索"),
    ("このファイルの内容を読み込んで", "read_file"),
    ("東京駅から新大阪駅までの乗り換え経路", "search_route"),
])
def test_a_japanese_catalog_is_found_by_words(request_, tool):
    assert _found(_index(JAPANESE, "jp"), request_)[0] == tool


def test_accents_are_folded_kana_voicing_and_case_kept():
    assert fold("créer_événement") == "creer_evenement"
    assert fold("Größe") == "Grosse" and fold("\uff21\uff22\uff23") == "ABC"  # ß as ss; full-width as plain
    assert fold("データ") == "データ"  # the voicing mark of kana is part of the letter
    assert raw_words("créerÉvénement") == ["creer", "evenement"]


@pytest.mark.parametrize(("request_", "tool"), [
    ("creer un evenement demain a 10h", "créer_événement"),  # typed without accents
    ("supprimer la réunion de lundi", "supprimer_événement"),
    ("generer une facture pour le client Dupont", "générer_facture"),
    ("Datei loschen", "datei_löschen"),  # ö typed as o
    ("wie gross ist das Verzeichnis", "verzeichnis_größe"),  # ß typed as ss
    ("buscar articulos de la categoria jardin", "buscar_artículo"),
    ("cancelá el pedido", "cancelar_pedido"),  # an accent the tool does not have
])
def test_an_accented_catalog_is_found_with_or_without_accents(request_, tool):
    assert _found(_index(ACCENTED, "eu"), request_)[0] == tool


def _last_texts(api_base: str) -> list[str]:
    stats = urllib.request.urlopen(api_base.removesuffix("/v1") + "/stats", timeout=10).read()
    return list(json.loads(stats)["last"])


def test_the_embedding_model_receives_the_text_as_written():
    require_model()
    tools = CHINESE + ACCENTED
    entries = [entry(name, "mixed", description, None) for name, description in tools]
    texts = [tool_text(e, description) for e, (_, description) in zip(entries, tools, strict=True)]
    # the name in words, the server, the description's first sentence: accents and scripts as written
    assert texts[0] == "launch app (mixed): 启动指定的应用程序。"
    assert texts[len(CHINESE)] == ("créer événement (mixed): "
                                   "Créer un événement dans l'agenda : réunion, rendez-vous ou rappel.")
    with running_embedding_server() as api_base:
        ranker = EmbeddingRanker({"model": "openai/all-minilm-l6-v2", "api_base": api_base, "api_key": "local"})
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(ranker._vectors(texts))
            assert _last_texts(api_base) == texts  # the catalog: accents and Chinese as written
            found = loop.run_until_complete(ranker.search(entries, texts, "Supprimer définitivement l'événement", 3))
            assert _last_texts(api_base) == ["Supprimer définitivement l'événement"]  # the request, unfolded
        finally:
            loop.close()
    assert found is not None and found[0].name == "supprimer_événement"


def test_scores_are_fused_not_only_ranks():
    # the words barely prefer A to B; the model finds B far nearer than A: fused scores put B first, where
    # reciprocal rank fusion (ranks only) kept A; a tool of another server is left out when one is asked
    from mcp_litellm._chat.tool_search.embedding import fuse, fuse_scores

    a, b, c, d = (entry(name, "s" if name != "d" else "other", name, None) for name in "abcd")
    by_words, by_meaning = [10.0, 9.9, 0.0, 0.0], [0.10, 0.90, 0.95, 0.99]
    assert [e.name for e in fuse_scores([a, b, c, d], by_words, by_meaning, 3, server="s")] == ["b", "a", "c"]
    assert fuse([a, b], [c, b, a], 3)[0].name == "a"
    assert fuse_scores([a], [0.0], [0.5], 3) == []  # nothing either ranking tells apart

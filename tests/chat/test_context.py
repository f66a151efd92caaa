"""Resources, templates and prompts as conversation context."""

from __future__ import annotations

from tests.helpers.chat import new_chat
from tests.scripted_llm.openai import Turn


def test_with_resources_add_text_images_and_binary_descriptions(llm, make_client):
    client = make_client("memory")
    llm.then(Turn(content="read them"))
    chat = new_chat().with_resource(client.resource("readme")).with_resources([client.resource("pixel"),
                                                                                client.resource("blob")])
    chat.ask("what do you see?")
    sent = llm.requests[0]["messages"]
    assert [m["role"] for m in sent] == ["user", "user", "user", "user"]
    assert "file:///docs/readme.md" in sent[0]["content"] and "#" in sent[0]["content"]
    image_parts = [p for p in sent[1]["content"] if p["type"] == "image_url"]
    assert image_parts and image_parts[0]["image_url"]["url"].startswith("data:image/png;base64,")
    assert "bytes" in sent[2]["content"] and "file:///data/blob.bin" in sent[2]["content"]
    assert sent[3] == {"role": "user", "content": "what do you see?"}


def test_templates_are_expanded_and_include_works(llm, make_client):
    client = make_client("memory")
    llm.then(Turn(content="ok"))
    chat = new_chat()
    template = client.resource_template("logs")
    assert template.include(chat, {"date": "2024-01-15", "level": "error"}) is chat
    assert client.resource("readme").include(chat) is chat
    chat.with_resource_template(template, arguments={"date": "2024-01-16", "level": "info"})
    chat.ask("summarise")
    contents = [m["content"] for m in llm.requests[0]["messages"][:3]]
    assert "logs://2024-01-15/error" in contents[0] and "2024-01-15" in contents[0]
    assert "readme" in contents[1]
    assert "logs://2024-01-16/info" in contents[2]


def test_with_prompt_appends_and_ask_prompt_asks(llm, make_client):
    client = make_client("memory")
    llm.then(Turn(content="Good morning, Alice!"), Turn(content="Looks fine."))
    chat = new_chat().with_instructions("Be kind.")
    greeting = client.prompt("greeting")
    reply = chat.ask_prompt(greeting, arguments={"name": "Alice"})
    assert reply.content == "Good morning, Alice!"
    sent = llm.requests[0]["messages"]
    assert sent[0] == {"role": "system", "content": "Be kind."} and "Alice" in sent[1]["content"]
    assert len(sent) == 2  # ask_prompt adds no extra user message
    review = client.prompt("review")
    assert review.include(chat, arguments={"code": "print(1)"}) is chat
    chat.with_prompt(greeting, {"name": "Bob", "time": "evening"})
    roles_before = [m["role"] for m in chat.messages]
    chat.ask()  # answer what the prompts put in the conversation
    sent = llm.requests[1]["messages"]
    assert [m["role"] for m in sent] == roles_before
    assert any("print(1)" in str(m["content"]) for m in sent) and "Bob" in str(sent[-1]["content"])


async def test_aask_prompt(llm, make_client):
    client = make_client("memory")
    llm.then(Turn(content="Hi Ann"))
    chat = new_chat()
    reply = await chat.aask_prompt(await client.aprompt("greeting"), {"name": "Ann"})
    assert reply.content == "Hi Ann" and "Ann" in llm.requests[0]["messages"][0]["content"]


def test_images_from_tools_reach_an_openai_model_as_a_user_message(llm, make_client):
    client = make_client("memory")
    llm.then(Turn(tool_calls=[("c1", "picture", {})]), Turn(content="a red pixel"))
    new_chat().with_tools(client.tool("picture")).ask("show me")
    sent = llm.requests[1]["messages"]
    tool, media = sent[-2], sent[-1]
    assert tool["role"] == "tool" and isinstance(tool["content"], str) and "attached" in tool["content"]
    assert media["role"] == "user"
    assert any(p["type"] == "image_url" and p["image_url"]["url"].startswith("data:image/png")
               for p in media["content"])

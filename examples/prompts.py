"""Render an MCP prompt and let the model answer it.

    python examples/prompts.py --model gpt-4o-mini
"""

from _setup import chat, connect, parse_args

args = parse_args(__doc__)
with connect(args) as client:
    prompt = client.prompt("summarize")
    print(f"prompt {prompt.name}: {prompt.description}; arguments {[a.name for a in prompt.arguments]}")
    text = "LiteLLM calls many model providers through one API. MCP servers offer tools and data to models."
    reply = chat(args).ask_prompt(prompt, arguments={"text": text, "style": "five words"})
    print(reply)

"""Render an MCP prompt and let the model answer it.

    python examples/prompts.py
    python examples/prompts.py "MCP servers offer tools, resources and prompts." --model ollama/llama3.2
"""

from _setup import chat, connect, parse_args

TEXT = "LiteLLM calls many model providers through one API. MCP servers offer tools and data to models."
args = parse_args(__doc__, TEXT, what="the text for the prompt to summarize")
with connect(args) as client:
    prompt = client.prompt("summarize")
    print(f"prompt {prompt.name}: {prompt.description}; arguments {[a.name for a in prompt.arguments]}")
    reply = chat(args).ask_prompt(prompt, arguments={"text": args.question, "style": "five words"})
    print(reply)

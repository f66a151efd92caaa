"""The async API: tools from an MCP server in an asyncio program.

    python examples/async_chat.py
    python examples/async_chat.py "Count the words in 'hello brave new world'." --model ollama/llama3.2
"""

import asyncio

from _setup import chat, connect, parse_args


async def main() -> None:
    args = parse_args(__doc__, "How many words are in 'the quick brown fox'? Use word_count.")
    async with connect(args) as client:
        conversation = chat(args).with_tools(*(await client.atools()))
        reply = await conversation.aask(args.question)
        print(reply)


asyncio.run(main())

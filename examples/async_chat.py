"""The async API: tools from an MCP server in an asyncio program.

    python examples/async_chat.py --model gpt-4o-mini
"""

import asyncio

from _setup import chat, connect, parse_args


async def main() -> None:
    args = parse_args(__doc__)
    async with connect(args) as client:
        conversation = chat(args).with_tools(*(await client.atools()))
        reply = await conversation.aask("How many words are in 'the quick brown fox'? Use word_count.")
        print(reply)


asyncio.run(main())

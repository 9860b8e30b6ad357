// Drives ali-ons (an unmodified RocketMQ remoting client for Node.js,
// pinned in package-lock.json) for tests/system/alions_client_test.cpp.
// One line on stdout per event, for the test to read:
//   node alions_client.js produce NAMESRV TOPIC FIRST COUNT [PAUSE_AT GO_FILE]
//     sends keys FIRST..FIRST+COUNT-1 one at a time ("sent KEY MSGID BROKER"
//     or "send-failed KEY ERROR"); every 10th body is 6 KiB (compressed by
//     the client), tags alternate TagA/TagB; after PAUSE_AT sends it says
//     "paused" and waits for GO_FILE to exist; "done" at the end.
//   node alions_client.js consume NAMESRV TOPIC GROUP FROM [TIMESTAMP]
//     FROM: first, last or timestamp (yyyyMMddHHmmss); "ready" once
//     started, then "consumed KEY RECONSUME TAG SIZE QUEUE:OFFSET" per
//     delivery; a key
//     ending in "r" is refused (ACTION_RETRY) at its first delivery, so it
//     comes back through the broker's retry topic.
'use strict';

const fs = require('fs');
const { Producer, Consumer, Message } = require('ali-ons');

// Quiet: the test reads stdout; ali-ons logs through this.
const logger = {
  info(...args) { if (process.env.ALIONS_LOG) console.error(...args); },
  debug() {},
  warn(...args) { if (process.env.ALIONS_LOG) console.error(...args); },
  error(...args) { console.error(...args); },
};
// ali-ons asks for an HTTP client, used only without nameSrv.
const httpclient = {};

function say(line) {
  process.stdout.write(line + '\n');
}

function body(key) {
  const n = Number(key.replace(/\D/g, ''));
  const text = `body of ${key} `;
  return n % 10 === 0 ? text.repeat(Math.ceil(6144 / text.length)) : text;
}

async function produce([ nameSrv, topic, first, count, pauseAt, goFile ]) {
  const producer = new Producer({
    httpclient, logger, nameSrv, producerGroup: 'PG_ALIONS',
  });
  producer.on('error', err => console.error('producer error', err.message));
  await producer.ready();
  const start = Number(first);
  for (let i = 0; i < Number(count); i++) {
    if (pauseAt !== undefined && i === Number(pauseAt)) {
      say('paused');
      while (!fs.existsSync(goFile)) {
        await new Promise(r => setTimeout(r, 20));
      }
    }
    const key = `k${start + i}${(start + i) % 7 === 0 ? 'r' : ''}`;
    const msg = new Message(topic, i % 2 ? 'TagB' : 'TagA', body(key));
    msg.keys = [ key ];
    try {
      const res = await producer.send(msg);
      say(`sent ${key} ${res.msgId} ${res.messageQueue.brokerName}`);
    } catch (err) {
      say(`send-failed ${key} ${err.name}: ${err.message}`.replace(/\n/g, ' '));
    }
  }
  say('done');
  await producer.close();
  process.exit(0);
}

async function consume([ nameSrv, topic, group, from, timestamp ]) {
  const where = {
    first: 'CONSUME_FROM_FIRST_OFFSET',
    last: 'CONSUME_FROM_LAST_OFFSET',
    timestamp: 'CONSUME_FROM_TIMESTAMP',
  }[from];
  const options = {
    httpclient, logger, nameSrv, consumerGroup: group,
    consumeFromWhere: where,
  };
  if (timestamp) {
    options.consumeTimestamp = timestamp;
  }
  const consumer = new Consumer(options);
  consumer.on('error', err => console.error('consumer error', err.message));
  consumer.subscribe(topic, '*', async msg => {
    const key = msg.keys;
    say(`consumed ${key} ${msg.reconsumeTimes} ${msg.tags} ${msg.body.length} ` +
        `${msg.queueId}:${msg.queueOffset}`);
    if (key.endsWith('r') && msg.reconsumeTimes === 0) {
      return Consumer.ACTION_RETRY;
    }
  });
  await consumer.ready();
  say('ready');
  const stop = async () => {
    await consumer.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

const [ mode, ...args ] = process.argv.slice(2);
const run = { produce, consume }[mode];
if (!run) {
  console.error('usage: alions_client.js produce|consume ...');
  process.exit(2);
}
run(args).catch(err => {
  console.error(err);
  process.exit(1);
});

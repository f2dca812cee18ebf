// Loaded into a built server under test (node --require, by startBuiltServer): records how long
// its main thread ran without giving its event loop a turn, in CPU time, so that a machine
// other work keeps busy (the server, or the prober, waiting for a core) does not count.
// Every 5 ms a timer reads the main thread's CPU time from /proc (utime and stime, 10 ms ticks);
// the CPU spent between two turns of that timer is one hold. Holds of 20 ms or more are appended
// to LOOP_HOLD_FILE as "<epoch ms> <held ms>" lines (shorter ones are under the clock's grain).
'use strict'
const { appendFileSync, readFileSync } = require('node:fs')

const file = process.env.LOOP_HOLD_FILE
if (file) {
  const stat = `/proc/self/task/${process.pid}/stat`
  const cpu = () => {
    const fields = readFileSync(stat, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  }
  let last = cpu()
  setInterval(() => {
    const now = cpu()
    if (now - last >= 20) appendFileSync(file, `${Date.now()} ${now - last}\n`)
    last = now
  }, 5).unref()
}

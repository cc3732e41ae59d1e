// A live region's words while a job runs: said again only every ANNOUNCE_MS, so that each poll
// does not talk over a screen reader, and at once when asked (the job ended, another is shown).

import { describe, expect, it } from 'vitest'
import {
  ANNOUNCE_MS,
  PacedAnnouncement,
} from '../../../src-renderer/src/lib/paced-announcement.svelte'

describe('PacedAnnouncement', () => {
  it('says new words at most every ANNOUNCE_MS, and at once when asked', () => {
    let time = 1000
    const announcement = new PacedAnnouncement(() => time)
    announcement.say('100 requests')
    expect(announcement.text).toBe('100 requests')
    time += ANNOUNCE_MS - 1
    announcement.say('200 requests')
    expect(announcement.text).toBe('100 requests')
    time += 1
    announcement.say('300 requests')
    expect(announcement.text).toBe('300 requests')
    time += 10
    announcement.say('', true)
    expect(announcement.text).toBe('')
  })
})

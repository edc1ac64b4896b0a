import { describe, expect, it } from 'vitest';
import { createCallPlaces } from './create-call-places.js';

describe('createCallPlaces', () => {
  it('gives one server half the places; the rest stay free for other servers and for calls to no server', async () => {
    const places = createCallPlaces(4);
    expect(places.tryTake('slow')).toBe(true);
    expect(places.tryTake('slow')).toBe(true);
    expect(places.tryTake('slow')).toBe(false);
    expect(places.tryTake('other')).toBe(true);
    expect(places.tryTake(undefined)).toBe(true);
    expect(places.tryTake(undefined)).toBe(false);
    const waiting = places.take('slow', undefined);
    expect(places.waiting).toBe(1);
    // A place given back by a call to no server does not go to the server whose share is full, nor past the servers' places.
    places.give(undefined);
    expect(places.tryTake('other')).toBe(false);
    expect(places.tryTake(undefined)).toBe(true);
    // One of its own does.
    places.give('slow');
    expect(await waiting).toBe(true);
    expect(places.waiting).toBe(0);
  });

  it('leaves a server\'s line holding nothing when the call is cancelled, and waits for a place among all after its share', async () => {
    const places = createCallPlaces(2);
    expect(places.tryTake(undefined)).toBe(true);
    expect(places.tryTake(undefined)).toBe(true);
    const stop = new AbortController();
    // Its share is free: it waits in the line of all the places.
    const cancelled = places.take('slow', stop.signal);
    const next = places.take('slow', undefined);
    expect(places.waiting).toBe(2);
    stop.abort();
    expect(await cancelled).toBe(false);
    places.give(undefined);
    // The cancelled call gave its share back: the next call of the server takes it, then the freed place.
    expect(await next).toBe(true);
    expect(places.tryTake('slow')).toBe(false);
    places.give('slow');
    expect(places.tryTake('slow')).toBe(true);
  });

  it('keeps one place for the calls to no server however many servers hang', async () => {
    const places = createCallPlaces(8);
    for (const server of ['a', 'a', 'a', 'a', 'b', 'b', 'b']) expect(places.tryTake(server)).toBe(true);
    expect(places.tryTake('b')).toBe(false);
    expect(places.tryTake('c')).toBe(false);
    const stop = new AbortController();
    const waiting = places.take('c', stop.signal);
    expect(places.tryTake(undefined)).toBe(true);
    expect(places.tryTake(undefined)).toBe(false);
    // The place a call to no server gives back goes to no server's call: 'c' still waits for a server's place.
    places.give(undefined);
    expect(places.tryTake(undefined)).toBe(true);
    places.give('a');
    expect(await waiting).toBe(true);
    stop.abort();
    places.give('c');
    places.give(undefined);
    expect(places.waiting).toBe(0);
    expect(places.tryTake('c')).toBe(true);
  });

  it('gives a server one place when there is one, and shares of many names come and go', () => {
    const single = createCallPlaces(1);
    expect(single.tryTake('only')).toBe(true);
    expect(single.tryTake('another')).toBe(false);
    single.give('only');
    expect(single.tryTake('another')).toBe(true);
    const places = createCallPlaces(8);
    for (let index = 0; index < 1000; index += 1) {
      expect(places.tryTake(`server-${index}`)).toBe(true);
      places.give(`server-${index}`);
    }
    expect(places.waiting).toBe(0);
    for (let index = 0; index < 4; index += 1) expect(places.tryTake('server-1')).toBe(true);
    expect(places.tryTake('server-1')).toBe(false);
  });
});

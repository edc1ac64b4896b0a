/*
 * A decision button answers only the card a person has been looking at.
 * Cards stack, and when one closes (decided, withdrawn, expired, answered in
 * another tab) the cards below it move up: the second click of a double click,
 * or a click aimed a moment before, would land on a card nobody read — and a
 * model can time its own calls to arrange that.
 *
 * So a card's decision buttons are inert (marked disabled, and drawn so)
 * until the card has stayed at the same place on the screen, at the same
 * size, for SETTLE_MS. A card that just appeared starts inert; one re-drawn is a new
 * element, so it starts inert too; one that moved for any reason — a card
 * above it closed, the page scrolled or was resized, its view was shown —
 * starts over. The check is made again when a button is pressed, so a click
 * that arrives before the next frame is measured as well. Keyboard activation
 * of a button is a click and meets the same check.
 *
 * A placeholder left where a closed card was would also keep the layout still,
 * but it has to go some time, and then the cards move anyway; it does nothing
 * for a card that takes an empty place, a scroll, or another tab's re-drawn
 * list. Measuring where the card is covers every cause of a move, whatever
 * it is.
 */

/** How long a card must stay still before its buttons answer: longer than a double click and than the time to react to a move. */
const SETTLE_MS = 600;

interface Placement {
  /** The card's box on the screen when it was last measured. */
  readonly box: DOMRect | undefined;
  /** When the card came to that box. */
  readonly since: number;
}

const placements = new Map<HTMLElement, Placement>();
let frame = 0;

const sameBox = (a: DOMRect | undefined, b: DOMRect): boolean => a !== undefined && a.left === b.left && a.top === b.top && a.width === b.width && a.height === b.height;

/** Whether the card has stayed in its box for SETTLE_MS; a card found elsewhere starts over from now. */
function settled(card: HTMLElement, now: number): boolean {
  const box = card.getBoundingClientRect();
  const seen = placements.get(card);
  if (seen === undefined) return false;
  if (!sameBox(seen.box, box)) {
    placements.set(card, { box, since: now });
    return false;
  }
  return now - seen.since >= SETTLE_MS;
}

function show(card: HTMLElement, ready: boolean): void {
  if (card.classList.contains('settling') !== ready) return;
  card.classList.toggle('settling', !ready);
  // aria-disabled, not disabled: the button keeps the keyboard focus while its card moves, and its click still comes to `whenSettled`, which refuses it.
  for (const button of card.querySelectorAll('.actions button')) button.setAttribute('aria-disabled', String(!ready));
}

// Every frame while a card is watched: measure each, and draw its buttons inert or live.
function measure(): void {
  const now = performance.now();
  for (const card of placements.keys()) {
    if (card.isConnected) show(card, settled(card, now));
    else placements.delete(card);
  }
  frame = placements.size > 0 ? requestAnimationFrame(measure) : 0;
}

/** Watch a card with decision buttons under `.actions`: they start inert and answer once it has stayed still. */
export function guardDecisions(card: HTMLElement): void {
  placements.set(card, { box: undefined, since: performance.now() });
  show(card, false);
  if (frame === 0) frame = requestAnimationFrame(measure);
}

/**
 * A decision button's click handler: `act` runs only when the button's card is
 * watched and has stayed still; otherwise the click does nothing and the card
 * is drawn inert.
 */
export function whenSettled(act: () => void): (event: Event) => void {
  return (event) => {
    const button = event.currentTarget as HTMLElement;
    const card = [...placements.keys()].find((watched) => watched.contains(button));
    if (card === undefined) return;
    const ready = settled(card, performance.now());
    show(card, ready);
    if (ready) act();
  };
}

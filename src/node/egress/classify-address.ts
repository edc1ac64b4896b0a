import ipaddr from 'ipaddr.js';

/** Public-range addresses that still reach cloud control planes. */
const METADATA_V4 = ['168.63.129.16', '169.254.169.254', '169.254.170.2', '100.100.100.200'];
const NAT64_WELL_KNOWN = ipaddr.IPv6.parse('64:ff9b::');
const IPV4_COMPATIBLE = ipaddr.IPv6.parse('::');

/**
 * Whether an IP address is a public unicast destination. Everything else is
 * refused: unspecified, loopback, private, link-local, CGNAT, benchmarking,
 * documentation, multicast, broadcast, reserved, unique-local, discard,
 * site-local, cloud metadata; `::/96` (IPv4-compatible); Teredo; local-use
 * NAT64. IPv4-mapped, well-known NAT64 (`64:ff9b::/96`) and 6to4
 * (`2002::/16`) addresses are judged by the IPv4 address they carry.
 * A string that is not an address (or carries a zone id) is not public.
 */
export function isPublicAddress(address: string): boolean {
  const bare = canonical(address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address);
  if (bare === undefined || !ipaddr.isValid(bare)) return false;
  const parsed = ipaddr.parse(bare);
  return parsed.kind() === 'ipv4' ? isPublicV4(parsed as ipaddr.IPv4) : isPublicV6(parsed as ipaddr.IPv6);
}

/**
 * IPv6 text through the WHATWG serializer first: ipaddr.js reads the dotted
 * tail of `::a.b.c.d` as IPv4-mapped, which would misjudge IPv4-compatible
 * addresses. Zone ids are refused.
 */
function canonical(address: string): string | undefined {
  if (!address.includes(':')) return address;
  if (address.includes('%')) return undefined;
  try {
    return new URL(`https://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

function isPublicV4(address: ipaddr.IPv4): boolean {
  return address.range() === 'unicast' && !METADATA_V4.includes(address.toString());
}

function isPublicV6(address: ipaddr.IPv6): boolean {
  if (address.isIPv4MappedAddress()) return isPublicV4(address.toIPv4Address());
  if (address.match(IPV4_COMPATIBLE, 96)) return false;
  if (address.match(NAT64_WELL_KNOWN, 96)) return isPublicV4(embeddedV4(address, 6));
  const range = address.range();
  if (range === '6to4') return isPublicV4(embeddedV4(address, 1));
  return range === 'unicast';
}

/** The IPv4 address held in two 16-bit parts starting at `part`. */
function embeddedV4(address: ipaddr.IPv6, part: number): ipaddr.IPv4 {
  const high = address.parts[part] ?? 0;
  const low = address.parts[part + 1] ?? 0;
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

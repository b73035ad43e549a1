//! Which addresses an outbound request may reach. A name a package is granted may still
//! resolve anywhere (a DNS record pointing at 127.0.0.1, a rebinding attack, a cloud's metadata
//! service), so every resolved address is checked here before the host connects to it: only
//! public unicast addresses pass, unless the grant names the address itself (or `localhost`,
//! for loopback ones).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is not a public one, or `None` when it is.
pub fn special(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => special_v4(v4),
        IpAddr::V6(v6) => special_v6(v6),
    }
}

fn special_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        _ if ip == Ipv4Addr::new(169, 254, 169, 254) => "a cloud metadata address",
        (0, _, _) => "an unspecified (0.0.0.0/8) address",
        (127, _, _) => "a loopback address",
        (10, _, _) => "a private (10.0.0.0/8) address",
        (172, 16..=31, _) => "a private (172.16.0.0/12) address",
        (192, 168, _) => "a private (192.168.0.0/16) address",
        (100, 64..=127, _) => "a carrier-grade NAT (100.64.0.0/10) address",
        (169, 254, _) => "a link-local address",
        (192, 0, 0) => "an IETF protocol (192.0.0.0/24) address",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "a documentation address",
        (198, 18..=19, _) => "a benchmarking (198.18.0.0/15) address",
        (224..=239, _, _) => "a multicast address",
        (240..=255, _, _) => "a reserved or broadcast address",
        _ => return None,
    })
}

fn special_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let seg = ip.segments();
    if ip.is_unspecified() {
        return Some("an unspecified (::) address");
    }
    if ip == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254) {
        return Some("a cloud metadata address");
    }
    if ip.is_loopback() {
        return Some("a loopback address");
    }
    // ::ffff:a.b.c.d and the deprecated ::a.b.c.d reach IPv4 hosts: judged as one, but named.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return special_v4(v4).map(|_| "an IPv4-mapped address of a non-public IPv4 address");
    }
    if seg[..6] == [0; 6] {
        return Some("an IPv4-compatible (::a.b.c.d) address");
    }
    // 64:ff9b::/96 (NAT64) wraps an IPv4 address too.
    if seg[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        let v4 = Ipv4Addr::new(
            (seg[6] >> 8) as u8,
            seg[6] as u8,
            (seg[7] >> 8) as u8,
            seg[7] as u8,
        );
        return special_v4(v4).map(|_| "a NAT64 address of a non-public IPv4 address");
    }
    Some(match seg[0] {
        0xfe80..=0xfebf => "a link-local address",
        0xfc00..=0xfdff => "a unique local (private) address",
        0xfec0..=0xfeff => "a site-local address",
        0xff00..=0xffff => "a multicast address",
        0x2001 if seg[1] == 0xdb8 => "a documentation address",
        0x2001 if seg[1] < 0x200 => "an IETF protocol (2001::/23) address",
        0x2002 => "a 6to4 address",
        0x0100 if seg[1..4] == [0, 0, 0] => "a discard-only (100::/64) address",
        _ if ip == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254) => "a cloud metadata address",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn every_kind_of_non_public_address_is_named() {
        for (text, words) in [
            ("127.0.0.1", "loopback"),
            ("127.255.0.9", "loopback"),
            ("::1", "loopback"),
            ("0.0.0.0", "unspecified"),
            ("::", "unspecified"),
            ("10.1.2.3", "private"),
            ("172.16.0.1", "private"),
            ("172.31.255.255", "private"),
            ("192.168.1.1", "private"),
            ("100.64.0.1", "carrier-grade NAT"),
            ("100.127.255.254", "carrier-grade NAT"),
            ("169.254.169.254", "metadata"),
            ("169.254.1.1", "link-local"),
            ("fe80::1", "link-local"),
            ("fd00:ec2::254", "metadata"),
            ("fc00::1", "unique local"),
            ("224.0.0.1", "multicast"),
            ("ff02::1", "multicast"),
            ("255.255.255.255", "broadcast"),
            ("::ffff:127.0.0.1", "IPv4-mapped"),
            ("::ffff:169.254.169.254", "IPv4-mapped"),
            ("::127.0.0.1", "IPv4-compatible"),
            ("64:ff9b::7f00:1", "NAT64"),
            ("2001:db8::1", "documentation"),
            ("2002:7f00:1::", "6to4"),
        ] {
            let why = special(ip(text)).unwrap_or_else(|| panic!("{text} passed"));
            assert!(why.contains(words), "{text}: {why}");
        }
    }

    #[test]
    fn public_addresses_pass() {
        for text in [
            "93.184.216.34",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700::1111",
            "::ffff:93.184.216.34",
            "64:ff9b::808:808",
        ] {
            assert_eq!(special(ip(text)), None, "{text}");
        }
    }
}

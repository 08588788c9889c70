//! Ages and durations in kubectl's short human form (`45s`, `3m12s`, `5h`, `12d`).

use std::time::Duration;

use jiff::Timestamp;

/// Age of `created` at `now`, as `kubectl get` prints it; `<unknown>` when missing.
pub fn format_age(created: Option<Timestamp>, now: Timestamp) -> String {
    match created {
        Some(created) => {
            let secs = now.as_second().saturating_sub(created.as_second()).max(0) as u64;
            format_duration(Duration::from_secs(secs))
        }
        None => "<unknown>".to_owned(),
    }
}

/// kubectl's `HumanDuration`: precise when short, coarse when long.
pub fn format_duration(d: Duration) -> String {
    let secs = d.as_secs();
    if secs == 0 && d.as_millis() > 0 {
        return format!("{}ms", d.as_millis());
    }
    let (minutes, hours, days) = (secs / 60, secs / 3600, secs / 86_400);
    if secs < 120 {
        format!("{secs}s")
    } else if minutes < 10 {
        match secs % 60 {
            0 => format!("{minutes}m"),
            s => format!("{minutes}m{s}s"),
        }
    } else if hours < 3 {
        format!("{minutes}m")
    } else if hours < 8 {
        match minutes % 60 {
            0 => format!("{hours}h"),
            m => format!("{hours}h{m}m"),
        }
    } else if hours < 48 {
        format!("{hours}h")
    } else if hours < 24 * 8 {
        match hours % 24 {
            0 => format!("{days}d"),
            h => format!("{days}d{h}h"),
        }
    } else if days < 365 * 2 {
        format!("{days}d")
    } else if days < 365 * 8 {
        match days % 365 {
            0 => format!("{}y", days / 365),
            d => format!("{}y{d}d", days / 365),
        }
    } else {
        format!("{}y", days / 365)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_kubectl() {
        for (secs, want) in [
            (0, "0s"),
            (59, "59s"),
            (119, "119s"),
            (125, "2m5s"),
            (600, "10m"),
            (3 * 3600 + 120, "3h2m"),
            (10 * 3600, "10h"),
            (3 * 86_400 + 3600, "3d1h"),
            (30 * 86_400, "30d"),
            (3 * 365 * 86_400 + 86_400, "3y1d"),
        ] {
            assert_eq!(format_duration(Duration::from_secs(secs)), want, "{secs}s");
        }
        assert_eq!(format_duration(Duration::from_millis(500)), "500ms");
    }

    #[test]
    fn age_from_timestamps() {
        let now: Timestamp = "2026-11-30T12:00:00Z".parse().unwrap();
        let created: Timestamp = "2026-11-30T11:58:30Z".parse().unwrap();
        assert_eq!(format_age(Some(created), now), "90s");
        assert_eq!(format_age(None, now), "<unknown>");
    }
}

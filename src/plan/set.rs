//! What one `set image|env|resources` command sets (pure): the template change it makes
//! to a JobSet, and its words for messages, hints, Events and the change cause.

use crate::model::jobset::JobSet;
use crate::model::kueue::ClusterQueueQuota;
use crate::plan::set_env::{EnvChange, env_words};
use crate::plan::set_image::{ImageArg, image_words};
use crate::plan::set_resources::ResourcesChange;
use crate::plan::template_change::{self, CannotTarget, ContainerSetter, Target, TemplateChange};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Setting {
    Image(Vec<ImageArg>),
    Env(EnvChange),
    Resources(ResourcesChange),
}

impl Setting {
    /// The change to `jobset`, or why the containers named are not there.
    pub fn plan(&self, jobset: &JobSet) -> Result<TemplateChange, CannotTarget> {
        match self {
            Setting::Image(args) => crate::plan::set_image::plan(jobset, args),
            Setting::Env(env) => template_change::plan(jobset, &[(&env.target, env as &dyn ContainerSetter)]),
            Setting::Resources(r) => template_change::plan(jobset, &[(&r.target, r as &dyn ContainerSetter)]),
        }
    }

    /// Why `jobset` must not take `change`, for `set resources`: a request above its limit
    /// (the JobSet would take it, and every Job made from it would be refused), or, under
    /// Kueue, more than its ClusterQueue (`queue`) could ever admit.
    pub fn refusal(
        &self,
        jobset: &JobSet,
        change: &TemplateChange,
        queue: Option<&ClusterQueueQuota>,
    ) -> Option<String> {
        let Setting::Resources(_) = self else { return None };
        if change.is_empty() {
            return None;
        }
        let after = crate::plan::staged::with_templates(jobset, &change.templates_of(jobset));
        let above = crate::plan::set_resources::requests_above_limits(&after);
        if !above.is_empty() {
            return Some(format!(
                "its requests would be above their limits ({}): the JobSet would take it, but every Job made from it \
                 would be refused. Nothing was changed; set the limits too (--limits)",
                above.join("; ")
            ));
        }
        let queue = queue?;
        let beyond = crate::plan::set_resources::never_admitted(
            &crate::plan::set_resources::kueue_demand(&after),
            queue,
        );
        (!beyond.is_empty()).then(|| {
            format!(
                "under Kueue it would ask for more than its ClusterQueue could ever admit: {} (every Pod of every \
                 replicatedJob counted), so once restarted it would stay queued for good. Nothing was changed; lower \
                 the requests, or raise the ClusterQueue's quota first",
                beyond.join("; ")
            )
        })
    }

    /// What a confirmation asks to set: `images`, `env`, `resources`.
    pub fn prompt_noun(&self) -> &'static str {
        match self {
            Setting::Image(_) => "images",
            Setting::Env(_) => "env",
            Setting::Resources(_) => "resources",
        }
    }

    /// The subcommand: `image`, `env`, `resources`.
    pub fn subcommand(&self) -> &'static str {
        match self {
            Setting::Image(_) => "image",
            Setting::Env(_) => "env",
            Setting::Resources(_) => "resources",
        }
    }

    /// What the result sentences call it, as kubectl does: `image updated`, `env updated`,
    /// `resource requirements updated`.
    pub fn noun(&self) -> &'static str {
        match self {
            Setting::Image(_) => "image",
            Setting::Env(_) => "env",
            Setting::Resources(_) => "resource requirements",
        }
    }

    /// The arguments after the JobSet names, as typed: `trainer=app:v2`,
    /// `-c trainer LR=0.1 DEBUG-`, `-c trainer --limits=cpu=2`.
    pub fn words(&self) -> String {
        let container = |t: &Target| match *t == Target::all() {
            true => String::new(),
            false => format!("-c {} ", t.label()),
        };
        match self {
            Setting::Image(args) => image_words(args),
            Setting::Env(env) => format!("{}{}", container(&env.target), env_words(&env.vars)),
            Setting::Resources(r) => format!("{}{}", container(&r.target), r.words()),
        }
    }

    /// The command for a hint, on one JobSet: `set env train -c trainer LR=0.1`.
    pub fn command(&self, jobset: &str) -> String {
        format!("set {} {jobset} {}", self.subcommand(), self.words())
    }

    /// The change cause when no `--reason` is given: the command, as `kubectl --record` kept it.
    pub fn default_cause(&self) -> String {
        format!("set {} {}", self.subcommand(), self.words())
    }

    /// The Event's reason and action: `ImageUpdated`/`SetImage`, …
    pub fn event(&self) -> (&'static str, &'static str) {
        match self {
            Setting::Image(_) => {
                (crate::cluster::events::IMAGE_UPDATE_REASON, crate::cluster::events::IMAGE_UPDATE_ACTION)
            }
            Setting::Env(_) => ("EnvUpdated", "SetEnv"),
            Setting::Resources(_) => ("ResourcesUpdated", "SetResources"),
        }
    }

    /// What the Event says was set, per changed container.
    pub fn event_words(&self, change: &TemplateChange) -> String {
        let containers: Vec<String> =
            change.edits.iter().map(|e| format!("{}/{}", e.replicated_job, e.container)).collect();
        match self {
            Setting::Image(_) => {
                let images: Vec<String> = change.edits.iter().map(|e| e.words()).collect();
                format!("image set to {}", images.join(" "))
            }
            Setting::Env(env) => format!("env {} set on {}", env_words(&env.vars), containers.join(" ")),
            Setting::Resources(r) => format!("resources {} set on {}", r.words(), containers.join(" ")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_setting_says_itself_as_typed() {
        let env = Setting::Env(EnvChange {
            target: Target::parse("workers/trainer").unwrap(),
            vars: crate::plan::set_env::parse_env_args(&["LR=0.1".into(), "DEBUG-".into()]).unwrap(),
        });
        assert_eq!(env.command("train"), "set env train -c workers/trainer LR=0.1 DEBUG-");
        let resources = Setting::Resources(ResourcesChange {
            target: Target::all(),
            limits: Default::default(),
            requests: crate::plan::set_resources::parse_resource_list("--requests", "cpu=2").unwrap(),
        });
        assert_eq!(resources.default_cause(), "set resources --requests=cpu=2");
        assert_eq!(resources.noun(), "resource requirements");
        let image =
            Setting::Image(crate::plan::set_image::parse_image_args(&["trainer=app:v2".into()]).unwrap());
        assert_eq!(image.command("train"), "set image train trainer=app:v2");
    }
}

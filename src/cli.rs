//! Command-line definition (clap derive only). Nothing outside this module and
//! `main.rs` depends on clap: commands get plain values through their plans.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

const EXIT_CODES: &str = "\
Exit codes:
  0  success
  1  error (for `diff`: drift found)
  2  usage error (for `diff`: any error)";

/// `--help` examples, kubectl's way: a comment line, then the command.
const LIST_HELP: &str = "\
Examples:
  # JobSets in the current namespace, with their attempt, Job counts and status
  kubectl jobset list

  # Every namespace, with images and Kueue queue
  kubectl jobset list -A -o wide

  # Follow changes
  kubectl jobset list -w

Exit codes:
  0  success
  1  error
  2  usage error";

const DIFF_HELP: &str = "\
Examples:
  # What the next restart of train changes
  kubectl jobset diff train

  # One line per JobSet, in every namespace
  kubectl jobset diff -A --summary

  # Machine-readable, for scripts
  kubectl jobset diff train -o json

  # Also record the history seen, where no recorder runs
  kubectl jobset diff train --record

Exit codes:
  0  no drift
  1  drift: Jobs run a template (or parallelism/completions) other than the spec's, or a
     change is staged for the next restart
  2  error (usage, API or cluster)";

const RESTART_HELP: &str = "\
Examples:
  # Restart train now, so its Jobs run the spec's templates
  kubectl jobset restart train

  # Restart every JobSet of a team whose Jobs are outdated, and wait until they are ready
  kubectl jobset restart -A -l team=ml --if-outdated --wait=ready -y

  # Only one Job of a replicatedJob (the JobSet then runs mixed templates)
  kubectl jobset restart train --job workers/3

Exit codes:
  0  restarted, already restarted, or skipped (--if-outdated)
  1  error: refused, failed, or --wait timed out (nothing is changed by a refusal)
  2  usage error";

const HISTORY_HELP: &str = "\
Examples:
  # Revisions of train, and the restart attempts that ran each
  kubectl jobset history train

  # The templates of revision 3, and what changed from 2 to 3
  kubectl jobset history train --revision 3
  kubectl jobset history train --diff 2,3

  # Store what is shown as <not recorded>, where no recorder runs
  kubectl jobset history train --record

Exit codes:
  0  success
  1  error
  2  usage error";

const ROLLBACK_HELP: &str = "\
Examples:
  # Back to the revision before the spec's, shown first
  kubectl jobset rollback train

  # To revision 2, restarting now and waiting for the new Jobs to be ready
  kubectl jobset rollback train --to-revision 2 --restart --wait=ready

  # Under Kueue, staged for the next restart instead
  kubectl jobset rollback train --to-revision 2 --at-next-restart

Exit codes:
  0  success
  1  error
  2  usage error";

const SET_IMAGE_HELP: &str = "\
Examples:
  # The trainer container of every replicatedJob that has it
  kubectl jobset set image train trainer=registry.example/trainer:v2

  # One replicatedJob's container, with a reason, then restart now
  kubectl jobset set image train workers/trainer=trainer:v2 --reason \"fix NCCL timeout\" --restart

  # A team's JobSets in every namespace, applied at each one's next restart
  kubectl jobset set image -A -l team=ml trainer=trainer:v2 --at-next-restart

Exit codes:
  0  success
  1  error
  2  usage error";

const SET_ENV_HELP: &str = "\
Examples:
  # Set a variable in every container of train, and remove another
  kubectl jobset set env train NCCL_DEBUG=INFO OLD_FLAG-

  # Only the trainer container of the workers, then restart now
  kubectl jobset set env train -c workers/trainer LEARNING_RATE=0.01 --restart

  # Preview the change without writing it
  kubectl jobset set env train -e NCCL_DEBUG=WARN --dry-run

Exit codes:
  0  success
  1  error
  2  usage error";

const ROLLOUT_START_HELP: &str = "\
Examples:
  # One canary restarted now, gated 10 minutes, then batches of 25% of team ml's JobSets
  kubectl jobset rollout start fix-nccl -l team=ml --image trainer=registry/train:v2 --canary 1 --gate ready=10m

  # Named canaries, batches of 3, an env change as well, at most 2 JobSets restarting at once
  kubectl jobset rollout start lr -l team=ml --env LR=0.01 --canary train-a,train-b --batch-size 3 --max-restarting 2

  # Write the rollout and let the recorder (or a later `rollout resume`) drive it
  kubectl jobset rollout start v3 -A -l app=llm --image '*=registry/llm:v3' --canary 2 --detach -y

  # Put every JobSet of team ml back on its own revision 3, two at a time
  kubectl jobset rollout start back -l team=ml --to-revision 3 --batch-size 2

Exit codes:
  0  the rollout completed (or was paused)
  1  error, or a gate failed
  2  usage error";

const ROLLOUT_STATUS_HELP: &str = "\
Examples:
  # Where rollout fix-nccl stands
  kubectl jobset rollout status fix-nccl

  # Follow it until it completes, or as JSON
  kubectl jobset rollout status fix-nccl -w
  kubectl jobset rollout status fix-nccl -o json

Exit codes:
  0  success
  1  error
  2  usage error";

const ROLLOUT_LIST_HELP: &str = "\
Examples:
  # The rollouts of this namespace
  kubectl jobset rollout list

Exit codes:
  0  success
  1  error
  2  usage error";

const ROLLOUT_PAUSE_HELP: &str = "\
Examples:
  # Hold rollout fix-nccl after the step in progress
  kubectl jobset rollout pause fix-nccl

Exit codes:
  0  success
  1  error
  2  usage error";

const ROLLOUT_RESUME_HELP: &str = "\
Examples:
  # Go on with a paused rollout, here
  kubectl jobset rollout resume fix-nccl

  # Mark it resumed and let another driver go on with it
  kubectl jobset rollout resume fix-nccl --detach

Exit codes:
  0  the rollout completed
  1  error, or a gate failed
  2  usage error";

const ROLLOUT_ABORT_HELP: &str = "\
Examples:
  # Put back the templates of every JobSet rollout fix-nccl changed
  kubectl jobset rollout abort fix-nccl

  # ...and restart those it had restarted, so they run the old template now
  kubectl jobset rollout abort fix-nccl --restart -y

Exit codes:
  0  aborted
  1  error
  2  usage error";

const SET_RESOURCES_HELP: &str = "\
Examples:
  # Limits and requests for the trainer containers of train
  kubectl jobset set resources train -c trainer --limits=cpu=4,memory=16Gi --requests=cpu=2,memory=8Gi

  # An admitted Kueue JobSet: stage the change for its next restart
  kubectl jobset set resources train --requests=cpu=3 --at-next-restart

  # Remove the memory limit (0 removes a resource)
  kubectl jobset set resources train --limits=memory=0

Exit codes:
  0  success
  1  error
  2  usage error";

const STATUS_HELP: &str = "\
Examples:
  # Wait until train's current attempt runs the spec's templates and is ready
  kubectl jobset status train

  # Look once
  kubectl jobset status train --watch=false

  # Also record the history seen, where no recorder runs
  kubectl jobset status train --record

Exit codes:
  0  done: the attempt runs the spec's templates and is ready, or the JobSet completed
  1  failed, suspended, deleted, superseded by a restart, timed out, or (--watch=false) not done yet
  2  usage error";

const SUSPEND_HELP: &str = "\
Examples:
  # Stop train's Pods, keeping its Jobs
  kubectl jobset suspend train

  # Every JobSet of a team, without asking
  kubectl jobset suspend -l team=ml -y

Exit codes:
  0  suspended, or already suspended
  1  error: refused or failed (nothing is changed by a refusal)
  2  usage error";

const RESUME_HELP: &str = "\
Examples:
  # Start train's Jobs again
  kubectl jobset resume train

  # What it would do
  kubectl jobset resume train --dry-run

Exit codes:
  0  resumed, or already running
  1  error: refused or failed (nothing is changed by a refusal)
  2  usage error";

const TREE_HELP: &str = "\
Examples:
  # train, its replicatedJobs, Jobs and Pods
  kubectl jobset tree train

Exit codes:
  0  success
  1  error (the JobSet does not exist, the cluster cannot be reached)
  2  usage error";

const VERSION_HELP: &str = "\
Examples:
  # The plugin, and what the cluster runs
  kubectl jobset version

  # The plugin only, without a cluster
  kubectl jobset version --client

Exit codes:
  0  success (a part that cannot be read is said as unknown)
  1  error: no kubeconfig, or the cluster cannot be reached
  2  usage error";

const RECORDER_HELP: &str = "\
Examples:
  # Record every namespace, with leader election (as deploy/recorder.yaml runs it)
  kubectl jobset recorder -A --leader-elect

  # One namespace, in the foreground, metrics on :8080
  kubectl jobset recorder -n ml --metrics-addr :8080

Exit codes:
  0  stopped by SIGTERM or SIGINT
  1  error
  2  usage error";

const RBAC_HELP: &str = "\
Examples:
  # give a cluster the three roles (as a cluster admin)
  kubectl jobset rbac | kubectl apply -f -

  # the read-only role, bound to alice in namespace ml
  kubectl jobset rbac readonly
  kubectl create rolebinding alice-jobsets --clusterrole=kubectl-jobset-readonly --user=alice -n ml

Exit codes:
  0  success
  2  usage error";

const COMPLETION_HELP: &str = "\
Examples:
  # bash, for this shell
  source <(kubectl jobset completion bash)

  # kubectl's own completion of `kubectl jobset ...` (kubectl 1.26+)
  kubectl jobset completion kubectl > ~/.local/bin/kubectl_complete-jobset
  chmod +x ~/.local/bin/kubectl_complete-jobset

Exit codes:
  0  success
  2  usage error";

/// Diff, restart, history and rollback for JobSets (jobset.x-k8s.io/v1alpha2).
///
/// kubectl passes no flags to plugins, so kubectl-jobset reads the usual kubectl
/// connection flags itself: --kubeconfig, --context, -n, --as, --request-timeout, ...
#[derive(Debug, Parser)]
#[command(
    name = "kubectl-jobset",
    bin_name = "kubectl jobset",
    version,
    after_help = EXIT_CODES,
    max_term_width = 100,
    propagate_version = true
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List JobSets with their restart attempt, Job counts and status.
    #[command(visible_alias = "ls", visible_alias = "get", after_help = LIST_HELP)]
    List(ListArgs),

    /// Show which running Jobs use an outdated template, and what differs.
    ///
    /// For each JobSet, compares the Job the controller would create now (defaulted by the
    /// API server with a dry run) with every child Job of the current restart attempt.
    /// Exits 0 when nothing differs, 1 when something does, and 2 on errors, like
    /// `kubectl diff`. KUBECTL_EXTERNAL_DIFF is honoured as by kubectl diff. Only reads
    /// (the dry runs store nothing) unless --record.
    #[command(after_help = DIFF_HELP)]
    Diff(DiffArgs),

    /// Restart JobSets now, so a pending template takes effect.
    ///
    /// Bumps status.restarts through the jobsets/status subresource: the JobSet controller
    /// then deletes every Job and recreates it from the current spec, exactly as after a
    /// failure. At most one restart happens per observed attempt, however many people run
    /// this at once. By default the restart does not count towards
    /// failurePolicy.maxRestarts.
    #[command(after_help = RESTART_HELP)]
    Restart(RestartArgs),

    /// Show a JobSet's template revisions, and which restart attempts ran each.
    ///
    /// The JobSet controller keeps no history, so kubectl-jobset records it as
    /// ControllerRevisions: the recorder (`kubectl jobset recorder`) as it happens, and
    /// every command that changes templates or restarts (restart, rollback, set image)
    /// what it saw. history itself only reads: what nobody recorded yet (the spec's
    /// templates, templates running Jobs were created from) is shown marked <not recorded>;
    /// --record stores it.
    #[command(after_help = HISTORY_HELP)]
    History(HistoryArgs),

    /// Put an earlier revision's templates back into the JobSet spec.
    ///
    /// Shows the diff first and asks on a terminal (-y skips). One JSON patch replaces
    /// only spec.replicatedJobs[*].template, guarded so that a concurrent edit fails
    /// cleanly instead of being overwritten. Running Jobs keep their template until the
    /// next restart; --restart restarts now.
    #[command(visible_alias = "undo", after_help = ROLLBACK_HELP)]
    Rollback(RollbackArgs),

    /// Change JobSet templates in place, as `kubectl set` does (`set image`).
    #[command(subcommand_required = true, arg_required_else_help = true, disable_help_subcommand = true)]
    Set(SetArgs),

    /// Roll one template change out over a fleet of JobSets in steps: canaries first, then
    /// batches, each behind a health gate; with status, pause, resume and abort.
    ///
    /// The rollout is a journal in a ConfigMap (kubectl-jobset-rollout-NAME) in the
    /// namespace the command runs in, so it outlives the command: `start`, `resume` and
    /// `abort` drive it in the foreground until it completes, fails a gate or is paused
    /// (--detach only writes the journal; `resume` drives it later). JobSets outside the
    /// batch in progress keep their template, so no natural restart elsewhere picks up a
    /// template that has not passed its gate.
    #[command(subcommand_required = true, arg_required_else_help = true, disable_help_subcommand = true)]
    Rollout(RolloutArgs),

    /// Follow a JobSet's current restart attempt until it runs the spec's templates and
    /// is ready, like `kubectl rollout status`.
    ///
    /// Done when every Job of the attempt exists, runs the spec's template and is ready
    /// (or succeeded), as far as startupPolicy and dependsOn let the controller create
    /// them, or when the JobSet completes. Ends with an error when it fails, is
    /// suspended, deleted, or a restart supersedes the attempt. Watches; never polls.
    /// Only reads unless --record.
    #[command(after_help = STATUS_HELP)]
    Status(StatusArgs),
    /// Show one JobSet as a tree: its replicatedJobs, their Jobs (restart attempt, template
    /// revision, readiness, outdated or not) and the Jobs' Pods, like `kubectl argo rollouts
    /// get rollout`. Reads only.
    #[command(after_help = TREE_HELP)]
    Tree(TreeArgs),

    /// Suspend JobSets (spec.suspend: true): the controller suspends their Jobs, whose
    /// Pods stop, as `kubectl rollout pause` pauses a Deployment.
    ///
    /// One guarded patch per JobSet. Refused for JobSets Kueue queues (Kueue owns
    /// spec.suspend: the message gives its way), managed by another controller, or finished.
    #[command(after_help = SUSPEND_HELP)]
    Suspend(LifecycleArgs),

    /// Resume suspended JobSets (spec.suspend: false): their existing Jobs start.
    ///
    /// Resuming merges only pod labels, annotations, nodeSelector and tolerations into the
    /// Jobs, so Jobs on an outdated template are said first (restart them, free while
    /// suspended). Refused under Kueue, which resumes a JobSet when it admits it.
    #[command(after_help = RESUME_HELP)]
    Resume(LifecycleArgs),

    /// Check how the cluster treats JobSet template updates, and opt in on a stock install.
    ///
    /// Says whether upstream's JobSet webhook refuses template changes (upstream strict),
    /// checks no UPDATE (relaxed), or skips JobSets whose update strategy is Opportunistic
    /// or Immediate (the opt-in), and whether our policies are installed. Prints the patch
    /// that opts in; --apply creates the policy of deploy/stock-opt-in.yaml (what the
    /// webhook still checks for opted-in JobSets) and sends the patch, guarded by the
    /// configuration's resourceVersion. Every JobSet without the opt-in stays as strict as
    /// upstream.
    #[command(after_help = EXIT_CODES)]
    Admission(AdmissionArgs),
    /// Keep every JobSet's history as it happens: a controller that runs until stopped.
    ///
    /// Watches JobSets and their Jobs, records a revision the moment a JobSet's templates
    /// change (from the spec, with the kubernetes.io/change-cause annotation), and credits
    /// each restart attempt to the revision its Jobs were created from. While it runs (its
    /// Lease is fresh), other kubectl-jobset commands write no history themselves. Runs in
    /// the foreground until SIGTERM or SIGINT; deploy/ runs it in the cluster.
    #[command(after_help = RECORDER_HELP)]
    Recorder(RecorderArgs),

    /// Print the plugin's version, and what the cluster runs: Kubernetes, the JobSet API and
    /// controller, Kueue, and the recorder.
    #[command(after_help = VERSION_HELP)]
    Version(VersionArgs),

    /// Print the ClusterRoles kubectl-jobset needs, to apply or to hand to a cluster admin.
    ///
    /// `user` is everything the commands do, `readonly` what list, diff, history, status
    /// and tree need, `handover` what `--handover` adds; without a ROLE, all three.
    /// Bind one per namespace with a RoleBinding (or cluster-wide for -A).
    #[command(after_help = RBAC_HELP)]
    Rbac(RbacArgs),

    /// Print a shell completion script (bash, zsh, fish, powershell), or the kubectl
    /// completion shim (`kubectl`).
    #[command(after_help = COMPLETION_HELP)]
    Completion(CompletionArgs),

    /// Answer kubectl's plugin completion protocol (used by kubectl_complete-jobset).
    #[command(name = "__complete", hide = true)]
    Complete(CompleteArgs),
}

/// Flags shared by every command, named and spelled as kubectl spells them.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Global options (as kubectl's)")]
pub struct GlobalArgs {
    /// Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config).
    #[arg(long, global = true, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,

    /// The kubeconfig context to use.
    #[arg(long, global = true, value_name = "NAME")]
    pub context: Option<String>,

    /// The kubeconfig cluster to use.
    #[arg(long, global = true, value_name = "NAME")]
    pub cluster: Option<String>,

    /// The kubeconfig user to use.
    #[arg(long, global = true, value_name = "NAME")]
    pub user: Option<String>,

    /// The API server's address, overriding the kubeconfig's (e.g. https://10.0.0.1:6443).
    #[arg(short = 's', long, global = true, value_name = "URL")]
    pub server: Option<String>,

    /// A bearer token to authenticate with, instead of the kubeconfig user's credentials.
    #[arg(long, global = true, value_name = "TOKEN", hide_env_values = true)]
    pub token: Option<String>,

    /// Server name to verify the API server's certificate against.
    #[arg(long, global = true, value_name = "NAME")]
    pub tls_server_name: Option<String>,

    /// Namespace to work in (default: the context's namespace). Given twice, the last
    /// wins, as in kubectl.
    #[arg(short = 'n', long, global = true, value_name = "NAMESPACE", overrides_with = "namespace")]
    pub namespace: Option<String>,

    /// Username to impersonate for the operation.
    #[arg(long = "as", global = true, value_name = "USER")]
    pub as_user: Option<String>,

    /// Group to impersonate for the operation (repeat for several).
    #[arg(long = "as-group", global = true, value_name = "GROUP")]
    pub as_group: Vec<String>,

    /// UID to impersonate for the operation.
    #[arg(long = "as-uid", global = true, value_name = "UID")]
    pub as_uid: Option<String>,

    /// How long to wait for a single API request (e.g. 5s, 1m, 500ms; 0 = no limit).
    #[arg(long, global = true, value_name = "DURATION", value_parser = parse_duration)]
    pub request_timeout: Option<Duration>,

    /// Skip verification of the API server's certificate (insecure).
    #[arg(long, global = true)]
    pub insecure_skip_tls_verify: bool,

    /// Do not colour output (also: the NO_COLOR environment variable).
    #[arg(long, global = true)]
    pub no_color: bool,

    /// Revisions to keep per JobSet when history is recorded (by restart, rollback, set image
    /// and the recorder, and by diff, history and status given --record); the spec's and the
    /// running one are always kept.
    #[arg(long, global = true, value_name = "N", default_value_t = 10)]
    pub history_limit: usize,

    /// Log verbosity, as kubectl's -v: 6 logs every API request (method, URL, status,
    /// latency) to stderr; 8 adds request headers, with credentials redacted.
    #[arg(short = 'v', long = "v", global = true, value_name = "LEVEL", default_value_t = 0)]
    pub verbosity: u8,
}

/// How to select JobSets, for commands that take several.
#[derive(Debug, Clone, Default, Args)]
pub struct SelectArgs {
    /// JobSet names (`NAME` or `jobset/NAME`); none means all in the namespace.
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,

    /// Look in every namespace.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,

    /// Label selector, e.g. `team=ml,tier!=dev`.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Table,
    Wide,
    Json,
    Yaml,
    Name,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub select: SelectArgs,

    /// Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE, jsonpath-file=FILE,
    /// custom-columns=HEADER:PATH,..., custom-columns-file=FILE, go-template=TEMPLATE or
    /// go-template-file=FILE (kubectl's JSONPath and Go templates).
    #[arg(short = 'o', long, value_name = "FORMAT", value_parser = ListOutputParser, default_value = "table")]
    pub output: ListOutput,

    /// Omit the table header.
    #[arg(long)]
    pub no_headers: bool,

    /// Sort by a JSONPath, e.g. `.metadata.creationTimestamp` or `{.status.restarts}`.
    #[arg(long, value_name = "PATH")]
    pub sort_by: Option<String>,

    /// Selector on the JobSets' fields, passed to the API server (`metadata.name=…`,
    /// `metadata.namespace!=…`: the fields the JobSet CRD can be selected by).
    #[arg(long, value_name = "SELECTOR")]
    pub field_selector: Option<String>,

    /// Add a LABELS column with every label.
    #[arg(long)]
    pub show_labels: bool,

    /// Add a column for each of these labels (`-L team,tier`, or repeated).
    #[arg(short = 'L', long, value_name = "LABEL", value_delimiter = ',')]
    pub label_columns: Vec<String>,

    #[command(flatten)]
    pub watch: WatchArgs,
}

/// `list -o`: a named format, or one of kubectl's template printers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListOutput {
    Format(OutputFormat),
    JsonPath(String),
    CustomColumns(String),
    GoTemplate(String),
}

/// Parses `list -o` (and offers its values to completion).
#[derive(Debug, Clone, Copy)]
pub struct ListOutputParser;

impl clap::builder::TypedValueParser for ListOutputParser {
    type Value = ListOutput;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<ListOutput, clap::Error> {
        let text = value.to_string_lossy();
        let invalid = |why: String| {
            let mut err = clap::Error::new(clap::error::ErrorKind::InvalidValue).with_cmd(cmd);
            if let Some(arg) = arg {
                err.insert(
                    clap::error::ContextKind::InvalidArg,
                    clap::error::ContextValue::String(arg.to_string()),
                );
            }
            err.insert(clap::error::ContextKind::InvalidValue, clap::error::ContextValue::String(why));
            err
        };
        if let Some(template) = text.strip_prefix("jsonpath=") {
            return Ok(ListOutput::JsonPath(template.to_owned()));
        }
        if let Some(columns) = text.strip_prefix("custom-columns=") {
            return Ok(ListOutput::CustomColumns(columns.to_owned()));
        }
        // The `-file` forms read the template from a file, as kubectl does.
        let read = |path: &str, what: &str| {
            std::fs::read_to_string(path).map_err(|e| {
                clap::Error::raw(
                    clap::error::ErrorKind::InvalidValue,
                    format!("error reading --output {what} {path:?}: {e}\n"),
                )
                .with_cmd(cmd)
            })
        };
        if let Some(path) = text.strip_prefix("jsonpath-file=") {
            return Ok(ListOutput::JsonPath(read(path, "jsonpath-file")?));
        }
        if let Some(path) = text.strip_prefix("custom-columns-file=") {
            let columns =
                crate::render::printers::custom_columns_from_file(&read(path, "custom-columns-file")?)
                    .map_err(|why| {
                        clap::Error::raw(
                            clap::error::ErrorKind::InvalidValue,
                            format!("invalid --output custom-columns-file {path:?}: {why}\n"),
                        )
                        .with_cmd(cmd)
                    })?;
            return Ok(ListOutput::CustomColumns(columns));
        }
        // kubectl's spellings: `go-template=`/`template=`, `go-template-file=`/`templatefile=`.
        if let Some(template) = text.strip_prefix("go-template=").or_else(|| text.strip_prefix("template=")) {
            return Ok(ListOutput::GoTemplate(template.to_owned()));
        }
        if let Some(path) =
            text.strip_prefix("go-template-file=").or_else(|| text.strip_prefix("templatefile="))
        {
            return Ok(ListOutput::GoTemplate(read(path, "go-template-file")?));
        }
        OutputFormat::from_str(&text, true).map(ListOutput::Format).map_err(|_| {
            let mut err = invalid(text.to_string());
            let valid = [
                "table",
                "wide",
                "json",
                "yaml",
                "name",
                "jsonpath=TEMPLATE",
                "jsonpath-file=FILE",
                "custom-columns=SPEC",
                "custom-columns-file=FILE",
                "go-template=TEMPLATE",
                "go-template-file=FILE",
            ];
            err.insert(
                clap::error::ContextKind::ValidValue,
                clap::error::ContextValue::Strings(valid.iter().map(|v| v.to_string()).collect()),
            );
            err
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        let names = [
            "table",
            "wide",
            "json",
            "yaml",
            "name",
            "jsonpath=",
            "jsonpath-file=",
            "custom-columns=",
            "custom-columns-file=",
            "go-template=",
            "go-template-file=",
        ];
        Some(Box::new(names.into_iter().map(clap::builder::PossibleValue::new)))
    }
}

/// How `history` prints: a table (or `-o`), and with `-w` its changes.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE, jsonpath-file=FILE,
    /// custom-columns=HEADER:PATH,... (one row per revision), custom-columns-file=FILE,
    /// go-template=TEMPLATE or go-template-file=FILE.
    #[arg(short = 'o', long, value_name = "FORMAT", value_parser = ListOutputParser, default_value = "table")]
    pub output: ListOutput,

    /// Omit the table header.
    #[arg(long)]
    pub no_headers: bool,

    #[command(flatten)]
    pub watch: WatchArgs,
}

/// `-w`, as `kubectl get -w`.
#[derive(Debug, Clone, Default, Args)]
pub struct WatchArgs {
    /// After the first output, watch and print changes as they happen (as `kubectl get -w`).
    #[arg(short = 'w', long)]
    pub watch: bool,

    /// With --watch: start each change with its event type (ADDED, MODIFIED, DELETED).
    #[arg(long, requires = "watch")]
    pub output_watch_events: bool,
}

/// `--record`, on the read commands that compare a JobSet with its Jobs.
#[derive(Debug, Clone, Default, Args)]
pub struct RecordArgs {
    /// Also record the history seen (ControllerRevisions), as restart, rollback and set
    /// image do. Without it this command only reads: the recorder keeps history complete, and
    /// --record is the fallback where none runs. KUBECTL_JOBSET_RECORD=1 sets it.
    #[arg(long, env = "KUBECTL_JOBSET_RECORD", value_parser = clap::builder::FalseyValueParser::new())]
    pub record: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffOutput {
    Json,
    Yaml,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    #[command(flatten)]
    pub select: SelectArgs,

    /// One line per JobSet: attempt, outdated/total Jobs, status.
    #[arg(long, conflicts_with = "output")]
    pub summary: bool,

    /// A machine-readable report instead of unified diffs.
    #[arg(short = 'o', long, value_enum)]
    pub output: Option<DiffOutput>,

    /// Ask the API server to default and validate the expected Jobs: a dry-run create
    /// (stored nowhere; needs create on jobs) per distinct template that differs on the
    /// client. Without it `diff` sends only GET/LIST requests and uses client-side defaults.
    #[arg(long)]
    pub server_dry_run: bool,

    #[command(flatten)]
    pub record: RecordArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DryRunMode {
    None,
    /// Print what would happen; send nothing.
    Client,
    /// Send the patch with dryRun=All, so admission runs; store nothing.
    Server,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WaitCondition {
    /// Every Job of the new attempt exists.
    Created,
    /// Every Job of the new attempt is ready.
    Ready,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MutationOutput {
    Json,
    Yaml,
    Name,
}

#[derive(Debug, Args)]
pub struct TreeArgs {
    /// The JobSet.
    #[arg(value_name = "NAME")]
    pub name: String,
}

#[derive(Debug, Args)]
pub struct VersionArgs {
    /// The plugin's version only (no cluster is contacted).
    #[arg(long)]
    pub client: bool,

    /// Print as json or yaml.
    #[arg(short = 'o', long, value_enum)]
    pub output: Option<VersionOutput>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VersionOutput {
    Json,
    Yaml,
}

#[derive(Debug, Args)]
pub struct LifecycleArgs {
    #[command(flatten)]
    pub select: SelectArgs,

    #[command(flatten)]
    pub change: ChangeArgs,
}

#[derive(Debug, Args)]
pub struct RestartArgs {
    #[command(flatten)]
    pub select: SelectArgs,

    /// Why: recorded in the RestartingJobSet condition and an Event on the JobSet.
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,

    /// Count this restart towards failurePolicy.maxRestarts (refused if it would exceed it).
    #[arg(long)]
    pub count_towards_max: bool,

    /// Restart only if the JobSet is at this attempt; if it is already past it, report
    /// "already restarted" and succeed (idempotent scripts).
    #[arg(long, value_name = "N")]
    pub expect_attempt: Option<i32>,

    /// Restart even while Jobs of an earlier attempt still exist.
    #[arg(long)]
    pub force: bool,

    /// Only restart JobSets whose running Jobs differ from the spec (see `diff`).
    #[arg(long)]
    pub if_outdated: bool,

    /// Change nothing: `client` prints what would happen, `server` also runs admission.
    #[arg(long, value_enum, value_name = "MODE", num_args = 0..=1, require_equals = true,
          default_value = "none", default_missing_value = "client")]
    pub dry_run: DryRunMode,

    /// Do not ask for confirmation when restarting several JobSets.
    #[arg(short = 'y', long)]
    pub yes: bool,

    /// Wait until every Job of the new attempt exists (`--wait=ready`: is ready).
    #[arg(long, value_enum, value_name = "CONDITION", num_args = 0..=1, require_equals = true,
          default_missing_value = "created")]
    pub wait: Option<WaitCondition>,

    /// How long --wait waits (e.g. 90s, 5m).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "5m")]
    pub timeout: Duration,

    /// Restart one Job, REPLICATEDJOB/INDEX, instead of the whole JobSet (needs the
    /// controller's RestartJob feature).
    #[arg(long, value_name = "REPLICATEDJOB/INDEX")]
    pub job: Option<String>,

    /// Print the restarted JobSets instead of a sentence each.
    #[arg(short = 'o', long, value_enum)]
    pub output: Option<MutationOutput>,
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub select: SelectArgs,

    /// Print the templates of revision N (negative counts back: -1 is the newest).
    #[arg(long, value_name = "N", allow_negative_numbers = true, conflicts_with = "diff")]
    pub revision: Option<i64>,

    /// Show what changed between two revisions, e.g. --diff 1,2 or --diff -2,-1.
    #[arg(long, value_name = "A,B", allow_hyphen_values = true)]
    pub diff: Option<String>,

    #[command(flatten)]
    pub show: ShowArgs,

    #[command(flatten)]
    pub record: RecordArgs,
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("restarting").multiple(true).args(["restart", "now"]))]
pub struct RollbackArgs {
    /// The JobSet.
    #[arg(value_name = "NAME")]
    pub name: String,

    /// The revision to go back to (negative counts back: -1 is the newest). Default: the
    /// revision before the spec's.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub to_revision: Option<i64>,

    /// Why: recorded as the change cause (default: "rollback to revision N").
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,

    #[command(flatten)]
    pub change: ChangeArgs,

    /// Restart the JobSet once the rollback has landed, so it takes effect now.
    #[arg(long)]
    pub restart: bool,

    /// Where the controller forbids template changes (upstream JobSet): recreate the JobSet
    /// with the templates and hand its running Jobs over to it, untouched; resumable.
    #[arg(long)]
    pub handover: bool,

    /// For a JobSet Kueue has admitted (otherwise refused: Kueue would stop it and resume
    /// the old template): roll back, let Kueue stop it, and restart it on the rolled-back
    /// template at once. Its Pods stop and its Workload queues again. Implies --restart.
    #[arg(long, conflicts_with = "handover")]
    pub now: bool,

    /// Leave the spec as it is and stage the rollback for the JobSet's next restart (a
    /// revision of its own): `restart` applies it, or the recorder at a natural restart.
    #[arg(long, conflicts_with_all = ["handover", "now", "restart"])]
    pub at_next_restart: bool,

    #[command(flatten)]
    pub with_restart: WithRestartArgs,

    /// Print the rolled-back JobSet instead of a sentence.
    #[arg(short = 'o', long, value_enum)]
    pub output: Option<MutationOutput>,
}

/// How a template change (rollback, set image) runs: shown only, or asked first.
#[derive(Debug, Args)]
pub struct ChangeArgs {
    /// Change nothing: `client` shows the diff, `server` also runs admission (webhooks, CEL).
    #[arg(long, value_enum, value_name = "MODE", num_args = 0..=1, require_equals = true,
          default_value = "none", default_missing_value = "client")]
    pub dry_run: DryRunMode,

    /// Do not ask for confirmation.
    #[arg(short = 'y', long)]
    pub yes: bool,
}

/// What goes with `--restart` after a template change (rollback, set image). Each
/// command declares `--restart` itself, since its help says what lands first; these
/// require it.
#[derive(Debug, Args)]
pub struct WithRestartArgs {
    /// With --restart (or --now): restart even while the previous restart is still in progress.
    #[arg(long, requires = "restarting")]
    pub force: bool,

    /// With --restart (or --now): wait until every Job of the new attempt exists (`=ready`:
    /// is ready); under Kueue, through its re-admission.
    #[arg(long, value_enum, value_name = "CONDITION", num_args = 0..=1, require_equals = true,
          default_missing_value = "created", requires = "restarting")]
    pub wait: Option<WaitCondition>,

    /// How long --wait waits.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "5m")]
    pub timeout: Duration,
}

#[derive(Debug, Args)]
pub struct SetArgs {
    #[command(subcommand)]
    pub command: SetCommand,
}

#[derive(Debug, Subcommand)]
pub enum SetCommand {
    /// Set container images in JobSet templates: NAME... [REPLICATEDJOB/]CONTAINER=IMAGE...
    ///
    /// As `kubectl set image`: `CONTAINER=IMAGE` sets the container (or init container)
    /// of that name, `*=IMAGE` every container; `REPLICATEDJOB/CONTAINER=IMAGE` (and
    /// `REPLICATEDJOB/*`, `*/CONTAINER`) limits it to replicatedJobs. One JSON patch per
    /// JobSet, guarded by the images it replaces. Running Jobs keep their template until
    /// the next restart; --restart restarts now.
    #[command(after_help = SET_IMAGE_HELP)]
    Image(SetImageArgs),

    /// Set or remove environment variables in JobSet templates: NAME... KEY=VALUE... KEY-...
    ///
    /// As `kubectl set env`: `KEY=VALUE` sets a variable (a `valueFrom` one becomes a plain
    /// value), `KEY-` removes it, in the containers -c names (all by default, init
    /// containers too). One JSON patch per JobSet, guarded by the env it replaces. Running
    /// Jobs keep their template until the next restart; --restart restarts now.
    #[command(after_help = SET_ENV_HELP)]
    Env(SetEnvArgs),

    /// Set resource limits and requests in JobSet templates: NAME... --limits/--requests LIST
    ///
    /// As `kubectl set resources`: `--limits=cpu=2,memory=4Gi --requests=cpu=1` in the
    /// containers -c names (all by default); a quantity of 0 removes that resource. A
    /// request above its limit is refused, and under Kueue so is a change the JobSet's
    /// ClusterQueue could never admit. One JSON patch per JobSet, guarded by the resources
    /// it replaces.
    #[command(after_help = SET_RESOURCES_HELP)]
    Resources(SetResourcesArgs),

    /// Set JobSets' update strategy: NAME... STRATEGY (Never, Opportunistic or Immediate).
    ///
    /// Writes the annotation kubectl-jobset.io/update-strategy with one JSON patch per
    /// JobSet, guarded by the value read. Never: template changes are refused (with the
    /// policy in deploy/update-strategies.yaml). Opportunistic: they apply at the next
    /// restart, and a queued JobSet is refreshed while suspended. Immediate: the recorder
    /// restarts the JobSet once per template change. The recorder enforces the last two.
    #[command(name = "update-strategy", after_help = EXIT_CODES)]
    UpdateStrategy(SetUpdateStrategyArgs),
}

#[derive(Debug, Args)]
pub struct RolloutArgs {
    #[command(subcommand)]
    pub command: RolloutCommand,
}

#[derive(Debug, Subcommand)]
pub enum RolloutCommand {
    /// Start a rollout: ROLLOUT (JOBSET... | -l SELECTOR [-A]) --image/--env ...
    ///
    /// Applies the change to the canaries and restarts them (--canary-restart=natural:
    /// waits for their natural restart), holds until the gate passes (--gate ready=DURATION:
    /// every Job of the new attempt ready, with no failure, for that long; succeeded: the
    /// attempt completes), then takes the next batch (--batch-size) the same way.
    /// Queued (suspended) JobSets go first among the batches: their restart is free.
    /// JobSets whose update strategy is Never, finished, managed by another controller
    /// or mid-restart are skipped and said. A failed gate stops the rollout.
    #[command(after_help = ROLLOUT_START_HELP)]
    Start(Box<RolloutStartArgs>),
    /// Show where a rollout stands: its phase, batch, gate and every JobSet's state.
    #[command(after_help = ROLLOUT_STATUS_HELP)]
    Status(RolloutStatusArgs),
    /// List the rollouts in the namespace.
    #[command(visible_alias = "ls", after_help = ROLLOUT_LIST_HELP)]
    List(RolloutListArgs),
    /// Pause a rollout: its driver stops after the step in progress.
    #[command(after_help = ROLLOUT_PAUSE_HELP)]
    Pause(RolloutNameArgs),
    /// Resume a paused rollout (or drive one nobody drives), in the foreground.
    #[command(after_help = ROLLOUT_RESUME_HELP)]
    Resume(RolloutDriveArgs),
    /// Abort a rollout: put back the templates of every JobSet it changed (guarded: an
    /// edit made since by someone else is kept); --restart also restarts those it restarted.
    #[command(after_help = ROLLOUT_ABORT_HELP)]
    Abort(RolloutAbortArgs),
}

#[derive(Debug, Args)]
pub struct RolloutNameArgs {
    /// The rollout's name.
    #[arg(value_name = "ROLLOUT")]
    pub name: String,
}

#[derive(Debug, Args)]
pub struct RolloutDriveArgs {
    /// The rollout's name.
    #[arg(value_name = "ROLLOUT")]
    pub name: String,

    /// Only write the journal; leave the driving to a later `rollout resume`.
    #[arg(long)]
    pub detach: bool,

    /// How long to drive before leaving it (it goes on with the next `resume`); 0: until done.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "0s")]
    pub timeout: Duration,
}

#[derive(Debug, Args)]
pub struct RolloutAbortArgs {
    #[command(flatten)]
    pub drive: RolloutDriveArgs,

    /// Also restart the rolled-back JobSets the rollout had restarted, so they run their
    /// old template again now.
    #[arg(long)]
    pub restart: bool,

    /// Do not ask for confirmation.
    #[arg(short = 'y', long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct RolloutStatusArgs {
    /// The rollout's name.
    #[arg(value_name = "ROLLOUT")]
    pub name: String,

    /// Print again as it moves, until it completes or is aborted.
    #[arg(short = 'w', long)]
    pub watch: bool,

    /// The rollout as one object (spec and status).
    #[arg(short = 'o', long, value_enum)]
    pub output: Option<VersionOutput>,
}

#[derive(Debug, Args)]
pub struct RolloutListArgs {
    #[arg(short = 'o', long, value_enum)]
    pub output: Option<VersionOutput>,
}

#[derive(Debug, Args)]
pub struct RolloutStartArgs {
    /// The rollout's name, then the JobSets (`NAME` or `jobset/NAME`), unless -l selects them.
    #[arg(value_name = "ROLLOUT|JOBSET", required = true)]
    pub args: Vec<String>,

    /// Select JobSets in every namespace (with -l).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,

    /// Select JobSets by label, e.g. `team=ml`.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,

    /// An image to set, `[REPLICATEDJOB/]CONTAINER=IMAGE` (as `set image`); repeatable.
    #[arg(long, value_name = "CONTAINER=IMAGE")]
    pub image: Vec<String>,

    /// A variable to set or remove, `KEY=VALUE` or `KEY-` (as `set env`); repeatable.
    #[arg(short = 'e', long, value_name = "KEY=VALUE")]
    pub env: Vec<String>,

    /// The containers --env changes: `[REPLICATEDJOB/]CONTAINER` (`*` for all, the default).
    #[arg(short = 'c', long = "containers", value_name = "CONTAINER", default_value = "*")]
    pub containers: String,

    /// Or put back each JobSet's own history revision N (as `rollback --to-revision`).
    #[arg(long, value_name = "N", conflicts_with_all = ["image", "env"])]
    pub to_revision: Option<i64>,

    /// Canaries: how many (running JobSets first), or which (comma-separated names).
    #[arg(long, value_name = "N|NAMES", default_value = "0")]
    pub canary: String,

    /// How the canaries take the change: restarted now, or at their natural restart.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "now")]
    pub canary_restart: RolloutRestart,

    /// The health gate after each batch: `ready=DURATION` (every Job of the new attempt
    /// ready, no failure, for that long) or `succeeded` (the new attempt completes).
    #[arg(long, value_name = "GATE", default_value = "ready=1m")]
    pub gate: String,

    /// JobSets per batch after the canaries: a number, or a percentage (`25%`).
    #[arg(long, value_name = "N|P%", default_value = "25%")]
    pub batch_size: String,

    /// How batches take the change: restarted now, or left to their next restart
    /// (`strategy`: their update strategy, or a natural restart).
    #[arg(long, value_enum, value_name = "WHEN", default_value = "now")]
    pub restart: RolloutBatchRestart,

    /// At most this many JobSets restarting (restarted, not ready yet) at once.
    #[arg(long, value_name = "N", default_value = "4")]
    pub max_restarting: usize,

    /// Why: recorded as each JobSet's change cause (default: the rollout and its change).
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,

    /// Only write the journal; leave the driving to a later `rollout resume`.
    #[arg(long)]
    pub detach: bool,

    /// How long to drive before leaving it (it goes on with `resume`); 0: until done.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "0s")]
    pub timeout: Duration,

    /// Do not ask for confirmation.
    #[arg(short = 'y', long)]
    pub yes: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RolloutRestart {
    Now,
    Natural,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RolloutBatchRestart {
    Now,
    Strategy,
}

#[derive(Debug, Args)]
pub struct SetUpdateStrategyArgs {
    /// JobSet names (`NAME` or `jobset/NAME`), then the strategy.
    #[arg(value_name = "NAME|STRATEGY", required = true)]
    pub args: Vec<String>,

    /// Select JobSets in every namespace (with -l).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,

    /// Select JobSets by label, e.g. `team=ml`.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,

    /// Change nothing: `client` says what would change, `server` also runs admission.
    #[arg(long, value_enum, value_name = "MODE", num_args = 0..=1, require_equals = true,
          default_value = "none", default_missing_value = "client")]
    pub dry_run: DryRunMode,
}

#[derive(Debug, Args)]
pub struct SetImageArgs {
    /// JobSet names (`NAME` or `jobset/NAME`), then one or more `[REPLICATEDJOB/]CONTAINER=IMAGE`.
    #[arg(value_name = "NAME|CONTAINER=IMAGE", required = true)]
    pub args: Vec<String>,

    #[command(flatten)]
    pub template: SetTemplateArgs,
}

#[derive(Debug, Args)]
pub struct SetEnvArgs {
    /// JobSet names (`NAME` or `jobset/NAME`), then `KEY=VALUE` to set and `KEY-` to remove.
    #[arg(value_name = "NAME|KEY=VALUE|KEY-", required = true)]
    pub args: Vec<String>,

    /// The containers to change: `[REPLICATEDJOB/]CONTAINER` (`*` for all, the default).
    #[arg(short = 'c', long = "containers", value_name = "CONTAINER", default_value = "*")]
    pub containers: String,

    /// A variable to set or remove (`KEY=VALUE`, `KEY-`), as a flag; repeatable.
    #[arg(short = 'e', long = "env", value_name = "KEY=VALUE")]
    pub env: Vec<String>,

    #[command(flatten)]
    pub template: SetTemplateArgs,
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("resource_lists").multiple(true).required(true).args(["limits", "requests"]))]
pub struct SetResourcesArgs {
    /// JobSet names (`NAME` or `jobset/NAME`).
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,

    /// The containers to change: `[REPLICATEDJOB/]CONTAINER` (`*` for all, the default).
    #[arg(short = 'c', long = "containers", value_name = "CONTAINER", default_value = "*")]
    pub containers: String,

    /// Resource limits, e.g. `cpu=2,memory=4Gi` (0 removes one).
    #[arg(long, value_name = "LIST")]
    pub limits: Option<String>,

    /// Resource requests, e.g. `cpu=1,memory=2Gi` (0 removes one). Under Kueue, a JobSet
    /// whose ClusterQueue could never admit the new requests is refused.
    #[arg(long, value_name = "LIST")]
    pub requests: Option<String>,

    #[command(flatten)]
    pub template: SetTemplateArgs,
}

/// What `set image`, `set env` and `set resources` share: selection, why, dry run,
/// restart, Kueue and handover.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("restarting").multiple(true).args(["restart", "now"]))]
pub struct SetTemplateArgs {
    /// Select JobSets in every namespace (with -l).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,

    /// Select JobSets by label, e.g. `team=ml`.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,

    /// Why: recorded as the change cause of the new revision (default: the command).
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,

    #[command(flatten)]
    pub change: ChangeArgs,

    /// Where the controller forbids template changes (upstream JobSet): recreate the JobSet
    /// with the new templates and hand its running Jobs over to it, untouched; resumable.
    /// One JobSet, by name.
    #[arg(long, conflicts_with_all = ["selector", "all_namespaces"])]
    pub handover: bool,

    /// Restart each changed JobSet once its patch has landed, so the change takes effect now.
    #[arg(long)]
    pub restart: bool,

    /// For a JobSet Kueue has admitted (otherwise refused: Kueue would stop it and resume
    /// the old template): change it, let Kueue stop it, and restart it on the new template
    /// at once. Its Pods stop and its Workload queues again. Implies --restart.
    #[arg(long, conflicts_with = "handover")]
    pub now: bool,

    /// Leave the spec as it is and stage the change for the JobSet's next restart (a
    /// revision of its own): `restart` applies it, or the recorder at a natural restart.
    /// For JobSets Kueue has admitted, whose Pods a change in place would stop.
    #[arg(long, conflicts_with_all = ["handover", "now", "restart"])]
    pub at_next_restart: bool,

    #[command(flatten)]
    pub with_restart: WithRestartArgs,

    /// Print the changed JobSets instead of a sentence each.
    #[arg(short = 'o', long, value_enum)]
    pub output: Option<MutationOutput>,
}

#[derive(Debug, Args)]
pub struct AdmissionArgs {
    /// Create the opt-in policy and patch the webhook configuration.
    #[arg(long)]
    pub apply: bool,

    /// With --apply, change nothing: `client` says what would change, `server` sends it
    /// with dryRun=All.
    #[arg(long, value_enum, value_name = "MODE", num_args = 0..=1, require_equals = true,
          default_value = "none", default_missing_value = "client", requires = "apply")]
    pub dry_run: DryRunMode,

    /// The ValidatingWebhookConfiguration of upstream's JobSet webhook.
    #[arg(long, value_name = "NAME", default_value = "jobset-validating-webhook-configuration")]
    pub webhook_configuration: String,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The JobSet.
    #[arg(value_name = "NAME")]
    pub name: String,

    /// Watch until done (`--watch=false`: look once and say where it stands).
    #[arg(short = 'w', long, value_name = "BOOL", num_args = 0..=1, require_equals = true,
          default_value_t = true, default_missing_value = "true", action = clap::ArgAction::Set)]
    pub watch: bool,

    /// How long to watch before giving up (0: no limit).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "0s")]
    pub timeout: Duration,

    #[command(flatten)]
    pub record: RecordArgs,
}

#[derive(Debug, Args)]
pub struct RecorderArgs {
    /// Record JobSets in every namespace (default: the namespace of -n or the context).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,

    /// Only JobSets matching this label selector, e.g. `team=ml`.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,

    /// Run as one of several replicas: only the holder of the Lease records.
    #[arg(long)]
    pub leader_elect: bool,

    /// Namespace of the recorder's Lease (commands read it from
    /// KUBECTL_JOBSET_RECORDER_NAMESPACE).
    #[arg(long, value_name = "NAMESPACE", default_value = "kube-system")]
    pub lease_namespace: String,

    /// How long the Lease holds without renewal (renewed every third of it).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "15s")]
    pub lease_duration: Duration,

    /// Where to serve /healthz, /readyz and /metrics (HOST:PORT, :PORT, or 0 for none).
    /// Also as controller-runtime names it: --metrics-bind-address, and
    /// --health-probe-bind-address (the probes share the metrics address).
    #[arg(long, visible_aliases = ["metrics-bind-address", "health-probe-bind-address"], value_name = "ADDRESS",
          default_value = "127.0.0.1:8080")]
    pub metrics_addr: String,

    /// How long a deleted JobSet's history is kept before it is pruned (0: at once).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "168h")]
    pub history_retention: Duration,
    /// The update strategy of JobSets without the kubectl-jobset.io/update-strategy
    /// annotation: RecordOnly (history only, never restarted), Never, Opportunistic or
    /// Immediate.
    #[arg(long, value_name = "STRATEGY", default_value = "RecordOnly")]
    pub default_update_strategy: String,

    /// Do not enforce update strategies (record history only; the recorder then needs no
    /// write access to jobsets/status).
    #[arg(long)]
    pub no_update_strategies: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
    Powershell,
    /// The `kubectl_complete-jobset` shim that kubectl runs to complete plugin arguments.
    Kubectl,
}

/// One of the ClusterRoles `rbac` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RbacRole {
    /// `kubectl-jobset`: every command.
    User,
    /// `kubectl-jobset-readonly`: the read verbs.
    Readonly,
    /// `kubectl-jobset-handover`: what `--handover` adds.
    Handover,
}

#[derive(Debug, Args)]
pub struct RbacArgs {
    #[arg(value_enum)]
    pub role: Option<RbacRole>,
}

#[derive(Debug, Args)]
pub struct CompletionArgs {
    #[arg(value_enum)]
    pub shell: CompletionShell,
}

#[derive(Debug, Args)]
pub struct CompleteArgs {
    /// The words typed after `kubectl jobset`; the last one is being completed.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub words: Vec<String>,
}

/// Parses kubectl-style durations: Go durations such as `30s`, `1m`, `1m30s`, `500ms`,
/// `2h` (via `kube::core::Duration`), or a bare number of seconds (as kubectl's
/// --request-timeout accepts).
pub fn parse_duration(text: &str) -> Result<Duration, BadDuration> {
    let bad = |source| BadDuration { text: text.to_owned(), source };
    if let Ok(seconds) = text.parse::<u64>() {
        return Ok(Duration::from_secs(seconds));
    }
    match text.parse::<kube::core::Duration>() {
        // Go accepts "" as nothing at all, and signed durations; a timeout is neither.
        Ok(d) if !text.is_empty() && !d.is_negative() => Ok(d.into()),
        Ok(_) => Err(bad(None)),
        Err(e) => Err(bad(Some(e))),
    }
}

/// A duration flag's value that is not a duration (clap prints it after the flag).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid duration {text:?}: use a number with a unit, e.g. 30s, 1m, 500ms")]
pub struct BadDuration {
    text: String,
    /// Why Go's grammar rejects it; None for a negative or empty duration.
    #[source]
    source: Option<kube::core::duration::ParseError>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn kubectl_global_flags_parse_anywhere() {
        let cli = Cli::try_parse_from([
            "kubectl-jobset",
            "list",
            "-n",
            "ml",
            "--context",
            "prod",
            "--kubeconfig",
            "/tmp/kc",
            "--as",
            "alice",
            "--as-group",
            "a",
            "--as-group",
            "b",
            "--request-timeout",
            "5s",
            "-v=6",
            "--insecure-skip-tls-verify",
            "-s",
            "https://10.0.0.1:6443",
            "--token",
            "t0k",
            "--as-uid",
            "u-1",
            "--tls-server-name",
            "api.example",
        ])
        .unwrap();
        let g = &cli.global;
        assert_eq!(g.namespace.as_deref(), Some("ml"));
        assert_eq!(g.context.as_deref(), Some("prod"));
        assert_eq!(g.kubeconfig.as_deref(), Some(std::path::Path::new("/tmp/kc")));
        assert_eq!(g.as_user.as_deref(), Some("alice"));
        assert_eq!(g.as_group, ["a", "b"]);
        assert_eq!(g.request_timeout, Some(Duration::from_secs(5)));
        assert_eq!(g.verbosity, 6);
        assert!(g.insecure_skip_tls_verify);
        assert_eq!(g.server.as_deref(), Some("https://10.0.0.1:6443"));
        assert_eq!(g.token.as_deref(), Some("t0k"));
        assert_eq!(g.as_uid.as_deref(), Some("u-1"));
        assert_eq!(g.tls_server_name.as_deref(), Some("api.example"));
    }

    #[test]
    fn global_flags_before_the_subcommand() {
        let cli = Cli::try_parse_from(["kubectl-jobset", "-n", "ml", "--v", "8", "list", "-A"]).unwrap();
        assert_eq!(cli.global.namespace.as_deref(), Some("ml"));
        assert_eq!(cli.global.verbosity, 8);
        let Command::List(list) = cli.command else { panic!("expected list") };
        assert!(list.select.all_namespaces);
    }

    #[test]
    fn list_selection_and_output() {
        let cli =
            Cli::try_parse_from(["kubectl-jobset", "list", "-l", "team=ml", "-o", "wide", "--no-headers"])
                .unwrap();
        let Command::List(list) = cli.command else { panic!("expected list") };
        assert_eq!(list.select.selector.as_deref(), Some("team=ml"));
        assert_eq!(list.output, ListOutput::Format(OutputFormat::Wide));
        assert!(list.no_headers);
    }

    #[test]
    fn unknown_output_format_is_a_usage_error() {
        let err = Cli::try_parse_from(["kubectl-jobset", "list", "-o", "xml"]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("xml"));
    }

    #[test]
    fn diff_flags() {
        let cli = Cli::try_parse_from(["kubectl-jobset", "diff", "a", "b", "-o", "json"]).unwrap();
        let Command::Diff(diff) = cli.command else { panic!("expected diff") };
        assert_eq!(diff.select.names, ["a", "b"]);
        assert_eq!(diff.output, Some(DiffOutput::Json));
        let err = Cli::try_parse_from(["kubectl-jobset", "diff", "--summary", "-o", "json"]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
    }

    #[test]
    fn restart_flags() {
        let cli = Cli::try_parse_from([
            "kubectl-jobset",
            "restart",
            "train",
            "--reason",
            "new image",
            "--dry-run",
            "--wait=ready",
            "--timeout",
            "90s",
            "--expect-attempt",
            "3",
            "-y",
        ])
        .unwrap();
        let Command::Restart(r) = cli.command else { panic!("expected restart") };
        assert_eq!(r.reason.as_deref(), Some("new image"));
        assert_eq!(r.dry_run, DryRunMode::Client, "bare --dry-run means client");
        assert_eq!(r.wait, Some(WaitCondition::Ready));
        assert_eq!(r.timeout, Duration::from_secs(90));
        assert_eq!(r.expect_attempt, Some(3));
        assert!(r.yes);
        let cli = Cli::try_parse_from(["kubectl-jobset", "restart", "train", "--dry-run=server", "--wait"])
            .unwrap();
        let Command::Restart(r) = cli.command else { panic!("expected restart") };
        assert_eq!((r.dry_run, r.wait), (DryRunMode::Server, Some(WaitCondition::Created)));
        assert!(Cli::try_parse_from(["kubectl-jobset", "restart", "x", "--dry-run=maybe"]).is_err());
    }

    #[test]
    fn history_flags() {
        let cli = Cli::try_parse_from(["kubectl-jobset", "history", "train", "--revision", "-1"]).unwrap();
        let Command::History(h) = cli.command else { panic!("expected history") };
        assert_eq!(h.revision, Some(-1));
        let cli = Cli::try_parse_from([
            "kubectl-jobset",
            "history",
            "train",
            "--diff",
            "-2,-1",
            "--history-limit",
            "3",
        ])
        .unwrap();
        assert_eq!(cli.global.history_limit, 3);
        let Command::History(h) = cli.command else { panic!("expected history") };
        assert_eq!(h.diff.as_deref(), Some("-2,-1"));
        assert!(
            Cli::try_parse_from(["kubectl-jobset", "history", "x", "--revision", "1", "--diff", "1,2"])
                .is_err()
        );
    }

    #[test]
    fn rollback_flags() {
        let cli = Cli::try_parse_from([
            "kubectl-jobset",
            "rollback",
            "train",
            "--to-revision",
            "-2",
            "--restart",
            "--wait",
        ])
        .unwrap();
        let Command::Rollback(r) = cli.command else { panic!("expected rollback") };
        assert_eq!((r.name.as_str(), r.to_revision, r.restart), ("train", Some(-2), true));
        assert_eq!(r.with_restart.wait, Some(WaitCondition::Created));
        for args in [&["rollback", "train"][..], &["set", "image", "train", "c=x:1"]] {
            for flag in ["--wait", "--force"] {
                let line = std::iter::once("kubectl-jobset").chain(args.iter().copied()).chain([flag]);
                assert!(Cli::try_parse_from(line).is_err(), "{args:?}: {flag} needs --restart");
            }
        }
        assert!(Cli::try_parse_from(["kubectl-jobset", "rollback"]).is_err(), "a name is required");
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_duration("7"), Ok(Duration::from_secs(7)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        assert!(parse_duration("5x").is_err());
        assert!(parse_duration("s").is_err());
        assert!(parse_duration("").is_err());
        assert!(parse_duration("-5s").is_err());
        assert!(parse_duration("1m30").is_err());
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(
            parse_duration("5x").unwrap_err().to_string(),
            "invalid duration \"5x\": use a number with a unit, e.g. 30s, 1m, 500ms"
        );
    }
}

/**
 * The tenant a request works in: a label, or a label's sandbox (a label row of its own). Every
 * label-owned row carries `label_id`, and every query reaches it through the helpers below.
 */
export interface Workspace {
  /** The label row whose data this is: the label itself or its sandbox. */
  readonly id: number;
  /** The real label: plan, terms and team belong to it. */
  readonly labelId: number;
  readonly sandbox: boolean;
}

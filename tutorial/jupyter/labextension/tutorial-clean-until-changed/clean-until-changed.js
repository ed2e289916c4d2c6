/*
 * tutorial-clean-until-changed: a notebook nobody changed shows no unsaved dot (issue 27).
 *
 * What it fixes. Opening a course notebook marked it dirty at once (the dot on its tab,
 * `.jp-mod-dirty`, and a "save changes?" question on closing), twice over:
 * - The course turns on the widget manager's `saveState` (tutorial/jupyter/lab_settings.py) so that
 *   saving keeps every widget's frame, and jupyterlab_widgets 3.0.10 then sets
 *   `context.model.dirty = true` for every widget model it registers, those it restores from
 *   the notebook's saved state on opening included (upstream: `WidgetManager.register_model`
 *   calls `setDirty()`). No content changes: the state is written when a save starts.
 * - When the kernel connects, JupyterLab writes the kernel's description into the metadata
 *   (`NotebookPanel`: `kernelspec`, `language_info`). The course's notebooks say "Python 3"
 *   where ipykernel says "Python 3 (ipykernel)", and a learner's Python may be another
 *   version than the one that ran them: the same kernel, described anew.
 *
 * How. Once a notebook's context is ready, a dirty flag raised while its content has not
 * changed since it was read or last written is put back to clean. The model emits
 * `contentChanged` before it raises the flag for a change, so a real one (a cell typed in,
 * run, added; metadata edited; another kernel chosen) still shows the dot. A new description
 * of the same kernel (same `name`) counts as no change; it is saved with the next save.
 *
 * Why plain JavaScript. This is a JupyterLab 4 federated ("prebuilt") extension written by
 * hand: the course has no Node toolchain. JupyterLab's loader (jupyterlab/static/bootstrap.js
 * and index.out.js; RISE's slideshow, a second JupyterLab core, likewise) runs this file, calls
 * `init(shareScope)` on `window._JUPYTERLAB[NAME]`, then `(await get('./extension'))()` for
 * the module whose default export is the plugin. Its token, `INotebookTracker`, must be the
 * very object the page's `@jupyterlab/notebook` exports, so it is taken from that share scope.
 */
(function () {
  'use strict';
  const NAME = 'tutorial-clean-until-changed';
  // Metadata JupyterLab rewrites when a kernel connects, and the field naming the kernel.
  const KERNEL_DESCRIPTION = { kernelspec: 'name', language_info: 'name' };
  let shareScope = null;

  /** The module `name` as the page shares it: the copy already loaded, else the newest
   *  (webpack's rule for a singleton; JupyterLab's core shares one copy of each package). */
  async function sharedModule(name) {
    const versions = (shareScope || {})[name];
    if (!versions) {
      throw new Error(`${NAME}: ${name} is not in JupyterLab's share scope`);
    }
    const keys = Object.keys(versions).sort((a, b) =>
      a.localeCompare(b, undefined, { numeric: true }));
    const key = keys.find(k => versions[k].loaded) || keys[keys.length - 1];
    const factory = await versions[key].get();   // a promise of the factory, or the factory
    return factory();
  }

  /** Is this metadata change the same kernel described anew? */
  function sameKernel(change) {
    const field = KERNEL_DESCRIPTION[change.key];
    return change.type === 'change' && field !== undefined &&
      (change.oldValue || {})[field] === (change.newValue || {})[field];
  }

  /** Put `model`'s dirty flag back to clean whenever it is raised with no content change. */
  function keepCleanUntilChanged(model) {
    let changed = false;            // has the content changed since it was read or written?
    let redescribed = false;        // is the next content change a kernel described anew?
    model.metadataChanged.connect((_, change) => { redescribed = sameKernel(change); });
    model.contentChanged.connect(() => {      // emitted just after metadataChanged, if any
      changed = changed || !redescribed;
      redescribed = false;
    });
    model.stateChanged.connect((_, change) => {
      if (change.name !== 'dirty') {
        return;
      }
      if (!change.newValue) {
        changed = false;            // saved or reverted: the file holds this content
      } else if (!changed) {
        // After the other listeners have seen it raised, so none is left with a stale value.
        queueMicrotask(() => {
          if (!changed && !model.isDisposed) {
            model.dirty = false;
          }
        });
      }
    });
    model.dirty = false;            // a flag raised between loading and now changed nothing
  }

  function watch(panel) {
    // A notebook that fails to load has no model to watch; JupyterLab reports the error.
    panel.context.ready.then(() => keepCleanUntilChanged(panel.context.model), () => {});
  }

  function plugin(INotebookTracker) {
    return {
      id: `${NAME}:plugin`,
      description: 'A notebook whose content did not change shows no unsaved dot.',
      autoStart: true,
      requires: [INotebookTracker],
      activate: (app, tracker) => {
        tracker.forEach(watch);
        tracker.widgetAdded.connect((_, panel) => watch(panel));
      }
    };
  }

  window._JUPYTERLAB = window._JUPYTERLAB || {};
  window._JUPYTERLAB[NAME] = {
    init: scope => { shareScope = scope; },
    get: async module => {
      if (module !== './extension') {
        throw new Error(`${NAME} has no module ${module}`);
      }
      const { INotebookTracker } = await sharedModule('@jupyterlab/notebook');
      const exports = { __esModule: true, default: plugin(INotebookTracker) };
      return () => exports;
    }
  };
})();

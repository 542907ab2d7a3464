package io.sextant.tc.ui;

import org.eclipse.core.runtime.IConfigurationElement;
import org.eclipse.core.runtime.IExecutableExtension;
import org.eclipse.tracecompass.tmf.core.dataprovider.IDataProviderFactory;
import org.eclipse.tracecompass.tmf.core.model.tree.ITmfTreeDataModel;
import org.eclipse.tracecompass.tmf.core.model.tree.ITmfTreeDataProvider;
import org.eclipse.tracecompass.tmf.core.trace.ITmfTrace;

/**
 * The data-provider factory of every sextant output: plugin.xml registers
 * it once per {@link SextantOutput}, under that output's id.
 */
public final class ProviderFactory implements IDataProviderFactory, IExecutableExtension {

    private SextantOutput output;

    @Override
    public void setInitializationData(IConfigurationElement config, String propertyName, Object data) {
        output = SextantOutput.ofProviderId(config.getAttribute("id"));
    }

    @Override
    public ITmfTreeDataProvider<? extends ITmfTreeDataModel> createProvider(ITmfTrace trace) {
        return output.provider(trace, SextantService.get().sidecar());
    }
}
